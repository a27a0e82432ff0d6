WITH "f0" AS (
  SELECT
    CAST("customers".signup_date AS DATE) AS "g0",
    COUNT("customers".customer_id) AS "a0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-03-31' AS DATE)
  GROUP BY
    CAST("customers".signup_date AS DATE)
), "f1_base" AS (
  SELECT
    "customers".customer_code AS "entity",
    CAST("customers".signup_date AS DATE) AS "t",
    CAST("customers".signup_date AS DATE) AS "g0"
  FROM customers AS "customers"
  WHERE
    "customers".signup_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-03-31' AS DATE)
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
    AND "b"."t" > CAST("c"."t" + INTERVAL '-7' DAY AS DATE)
), "f1" AS (
  SELECT
    "g0" AS "g0",
    COUNT("v") AS "a1"
  FROM "f1_attributed"
  WHERE
    "rn" = 1
  GROUP BY
    "g0"
), "f2" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "g0",
    COUNT("orders".order_id) AS "a2"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-03-31' AS DATE)
  GROUP BY
    CAST("orders".order_date AS DATE)
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1",
    MAX("a2") AS "a2"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1",
      NULL AS "a2"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1",
      NULL AS "a2"
    FROM "f1"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      "a2"
    FROM "f2"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__day",
  CASE
    WHEN "m"."a1" IS NULL AND "m"."a0" IS NULL
    THEN NULL
    ELSE COALESCE("m"."a1", 0)
  END AS "signupWeekConversionsFilled",
  "m"."a2" AS "OrdersModel__ordersPlaced"
FROM "merged" AS "m"
ORDER BY
  "metric_time__day" ASC
