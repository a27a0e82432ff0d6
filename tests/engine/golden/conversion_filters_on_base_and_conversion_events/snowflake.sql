WITH "f0" AS (
  SELECT
    CAST(DATE_TRUNC('quarter', "customers".signup_date) AS DATE) AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date >= CAST('2023-01-01' AS DATE)
    AND "customers".segment = 'consumer'
  GROUP BY
    CAST(DATE_TRUNC('quarter', "customers".signup_date) AS DATE)
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS DATE) AS "t",
    CAST(DATE_TRUNC('quarter', "customers".signup_date) AS DATE) AS "g0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date >= CAST('2023-01-01' AS DATE)
    AND "customers".segment = 'consumer'
), "f1_conversions" AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY CAST("orders".order_date AS DATE)) AS "id",
    UPPER(TRIM("orders".customer_ref)) AS "entity",
    CAST("orders".order_date AS DATE) AS "t",
    UPPER(TRIM("orders".customer_ref)) AS "v"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web'
), "f1_attributed" AS (
  SELECT
    "c"."v",
    "b"."g0",
    ROW_NUMBER() OVER (PARTITION BY "c"."id" ORDER BY "b"."t" DESC NULLS LAST) AS "rn"
  FROM "f1_base" AS "b"
  INNER JOIN "f1_conversions" AS "c"
    ON "b"."entity" = "c"."entity"
    AND "b"."t" <= "c"."t"
    AND "b"."t" > CAST(DATEADD(DAY, -30, "c"."t") AS DATE)
), "f1" AS (
  SELECT
    "g0" AS "g0",
    COUNT(DISTINCT "v") AS "a1"
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
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__quarter",
  CAST("m"."a1" AS DOUBLE) / NULLIF("m"."a0", 0) AS "consumerSignupToWebOrderRate"
FROM "merged" AS "m"
ORDER BY
  "metric_time__quarter" ASC
