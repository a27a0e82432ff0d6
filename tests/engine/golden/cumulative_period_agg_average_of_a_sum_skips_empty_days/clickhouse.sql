WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS Nullable(DATE)) AS "t",
    "order_items".quantity * "order_items".unit_price * (
      1 - COALESCE("order_items".discount, 0)
    ) AS "i0"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
), "f0_periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= toMonday((
      SELECT
        MIN("t")
      FROM "f0_rows"
    ))
    AND "spine"."date_day" < addDays(toMonday((
      SELECT
        MAX("t")
      FROM "f0_rows"
    )), 7)
    AND "spine"."date_day" BETWEEN CAST('2024-01-29' AS Nullable(DATE)) AND CAST('2024-02-25' AS Nullable(DATE))
), "f0_days" AS (
  SELECT
    "t",
    SUM("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0_daily" AS (
  SELECT
    "p"."period" AS "day",
    SUM("r"."i0") AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < addDays("p"."period", 1)
    AND "r"."t" >= addDays(addDays("p"."period", 1), -2)
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    toMonday("d"."day") AS "g0",
    toStartOfMonth("d"."day") AS "g1",
    AVG(CAST("d"."a0" AS Nullable(Float64))) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    toMonday("d"."day"),
    toStartOfMonth("d"."day")
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."g1" AS "OrdersModel__orderDate__month",
  "m"."a0" AS "revenueLast2DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC,
  "OrdersModel__orderDate__month" ASC
SETTINGS join_use_nulls = 1
