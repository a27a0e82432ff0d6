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
    ), 'weekday 0', '-6 days')
    AND "spine"."date_day" < DATE(
      DATE((
        SELECT
          MAX("t")
        FROM "f0_rows"
      ), 'weekday 0', '-6 days'),
      '+7 days'
    )
    AND "spine"."date_day" BETWEEN '2024-01-22' AND '2024-02-25'
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
    DATE("d"."day", 'weekday 0', '-6 days') AS "g0",
    CAST(STRFTIME('%m', "d"."day") AS INTEGER) AS "g1",
    AVG(CAST("d"."a0" AS REAL)) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    DATE("d"."day", 'weekday 0', '-6 days'),
    CAST(STRFTIME('%m', "d"."day") AS INTEGER)
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."g1" AS "OrdersModel__orderDate__extract_month",
  "m"."a0" AS "ordersLast30DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC NULLS LAST,
  "OrdersModel__orderDate__extract_month" ASC NULLS LAST
