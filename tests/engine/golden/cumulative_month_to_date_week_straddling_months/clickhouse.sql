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
    AND "spine"."date_day" BETWEEN CAST('2024-04-22' AS Nullable(DATE)) AND CAST('2024-05-12' AS Nullable(DATE))
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
    AND "r"."t" >= toStartOfMonth(addDays(addDays("p"."period", 1), -1))
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."g1",
    "ranked"."a0"
  FROM (
    SELECT
      toMonday("d"."day") AS "g0",
      toStartOfMonth("d"."day") AS "g1",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (
        PARTITION BY toMonday("d"."day"), toStartOfMonth("d"."day")
        ORDER BY "d"."day" DESC
      ) AS "__rank"
    FROM "f0_daily" AS "d"
  ) AS "ranked"
  WHERE
    "ranked"."__rank" = 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."g1" AS "OrdersModel__orderDate__month",
  "m"."a0" AS "ordersMonthToDate"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC,
  "OrdersModel__orderDate__month" ASC
SETTINGS join_use_nulls = 1
