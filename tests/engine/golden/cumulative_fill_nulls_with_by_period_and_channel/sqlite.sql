WITH "f0_rows" AS (
  SELECT
    DATE("orders".order_date) AS "t",
    "orders".channel AS "g1",
    UPPER(TRIM("orders".customer_ref)) AS "i0"
  FROM orders AS "orders"
  WHERE
    TRIM("orders".status) = 'returned'
), "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= (
      SELECT
        MAX("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" BETWEEN '2024-01-01' AND '2024-03-31'
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    "r"."g1" AS "g1",
    COUNT(DISTINCT "r"."i0") AS "a0"
  FROM "f0_periods" AS "p"
  INNER JOIN "f0_rows" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 months')
    AND "r"."t" >= DATE(DATE(DATE("p"."period", '+1 months'), '-1 days'), 'start of month')
  GROUP BY
    "p"."period",
    "r"."g1"
), "f1" AS (
  SELECT
    DATE("orders".order_date, 'start of month') AS "g0",
    "orders".channel AS "g1",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-01-01' AND '2024-03-31'
    AND TRIM("orders".status) = 'returned'
  GROUP BY
    DATE("orders".order_date, 'start of month'),
    "orders".channel
), "merged" AS (
  SELECT
    "g0",
    "g1",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "g1",
      "a0",
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      "g1",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0",
    "g1"
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."g1" AS "OrdersModel__channel",
  COALESCE("m"."a0", 0) AS "customersMonthToDateOrZero",
  "m"."a1" AS "OrdersModel__orderCount"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC NULLS LAST,
  "OrdersModel__channel" ASC NULLS LAST
