WITH "f0_rows" AS (
  SELECT
    DATE("orders".order_date) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'store'
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
    AND "spine"."date_day" <= DATE((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ), '+3 days')
    AND "spine"."date_day" BETWEEN '2024-01-20' AND '2024-03-10'
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
  INNER JOIN "f0_days" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE("p"."period", '+1 days'), '-2 days')
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."a0"
  FROM (
    SELECT
      DATE("d"."day", 'weekday 0', '-6 days') AS "g0",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (
        PARTITION BY DATE("d"."day", 'weekday 0', '-6 days')
        ORDER BY "d"."day" ASC NULLS LAST
      ) AS "__rank"
    FROM "f0_daily" AS "d"
  ) AS "ranked"
  WHERE
    "ranked"."__rank" = 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."a0" AS "ordersLast2DaysFirstNonEmpty"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC NULLS LAST
