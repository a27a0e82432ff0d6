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
    AND "spine"."date_day" >= '2024-03-01'
    AND "spine"."date_day" < '2024-03-15'
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    (
      (
        CAST(STRFTIME('%w', "p"."period") AS INTEGER) + 6
      ) % 7
    ) + 1 AS "g1",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE("p"."period", '+1 days'), '-7 days')
  GROUP BY
    "p"."period",
    (
      (
        CAST(STRFTIME('%w', "p"."period") AS INTEGER) + 6
      ) % 7
    ) + 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__day",
  "m"."g1" AS "OrdersModel__orderDate__extract_dow",
  "m"."a0" AS "ordersLast7DaysCount"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__day" ASC NULLS LAST,
  "OrdersModel__orderDate__extract_dow" ASC NULLS LAST
