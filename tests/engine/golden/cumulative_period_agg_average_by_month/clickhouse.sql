WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS Nullable(DATE)) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= toStartOfMonth((
      SELECT
        MIN("t")
      FROM "f0_rows"
    ))
    AND "spine"."date_day" < addMonths(toStartOfMonth((
      SELECT
        MAX("t")
      FROM "f0_rows"
    )), 1)
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
    ON "r"."t" < addDays("p"."period", 1)
    AND "r"."t" >= addDays(addDays("p"."period", 1), -30)
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    toStartOfMonth("d"."day") AS "g0",
    AVG(CAST("d"."a0" AS Nullable(Float64))) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    toStartOfMonth("d"."day")
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."a0" AS "ordersLast30DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC
SETTINGS join_use_nulls = 1
