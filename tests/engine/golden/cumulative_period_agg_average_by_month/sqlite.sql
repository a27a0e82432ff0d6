WITH "f0_rows" AS (
  SELECT
    DATE("orders".order_date) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= DATE((
      SELECT
        MIN("t")
      FROM "f0_rows"
    ), 'start of month')
    AND "spine"."date_day" < DATE(DATE((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ), 'start of month'), '+1 months')
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0_daily" AS (
  SELECT
    "p"."period" AS "day",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE("p"."period", '+1 days'), '-30 days')
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    DATE("d"."day", 'start of month') AS "g0",
    AVG(CAST("d"."a0" AS REAL)) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    DATE("d"."day", 'start of month')
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."a0" AS "ordersLast30DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC NULLS LAST
