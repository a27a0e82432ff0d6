WITH "f0" AS (
  SELECT
    CAST(DATE_TRUNC('month', "customers".signup_date) AS DATE) AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date BETWEEN CAST('2024-10-01' AS DATE) AND CAST('2025-03-31' AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('month', "customers".signup_date) AS DATE)
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS DATE) AS "t",
    CAST(DATE_TRUNC('month', "customers".signup_date) AS DATE) AS "g0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date BETWEEN CAST('2024-10-01' AS DATE) AND CAST('2025-03-31' AS DATE)
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("conversion_events".order_date AS DATE)) AS "id",
    UPPER(TRIM("conversion_events".customer_ref)) AS "entity",
    CAST("conversion_events".order_date AS DATE) AS "t",
    "conversion_events".order_id AS "v"
  FROM orders AS "conversion_events"
), "f1_attributed" AS (
  SELECT
    "c"."v",
    "b"."g0",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC) AS "rn"
  FROM "f1_base" AS "b"
  INNER JOIN "f1_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > DATE_ADD('day', -7, "c"."t")
), "f1" AS (
  SELECT
    "g0" AS "g0",
    COUNT("v") AS "a1"
  FROM "f1_attributed"
  WHERE
    "rn" = 1
  GROUP BY
    "g0"
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "a0",
      (
        SELECT
          "a1"
        FROM "f1"
        WHERE
          FALSE
      ) AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      (
        SELECT
          "a0"
        FROM "f0"
        WHERE
          FALSE
      ) AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__month",
    COALESCE("m"."a1", 0) AS "signupConversionsOnSpine"
  FROM "merged" AS "m"
), "periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-10-01' AS DATE) AND CAST('2025-03-31' AS DATE)
)
SELECT
  "p"."period" AS "metric_time__month",
  CASE
    WHEN "r"."metric_time__month" IS NULL
    THEN COALESCE(NULL, 0)
    ELSE "r"."signupConversionsOnSpine"
  END AS "signupConversionsOnSpine"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__month" = "p"."period"
ORDER BY
  "metric_time__month" ASC
