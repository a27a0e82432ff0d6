WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".channel AS "g1",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= CAST((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ) + INTERVAL '8' DAY AS DATE)
    AND "spine"."date_day" < CAST('2023-04-01' AS DATE)
), "f0_days" AS (
  SELECT
    "t",
    "g1",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t",
    "g1"
), "f0_daily" AS (
  SELECT
    "r"."g1" AS "g1",
    "p"."period" AS "day",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  INNER JOIN "f0_days" AS "r"
    ON "r"."t" < CAST("p"."period" + INTERVAL '1' DAY AS DATE)
    AND "r"."t" >= CAST(CAST("p"."period" + INTERVAL '1' DAY AS DATE) + INTERVAL '-7' DAY AS DATE)
  GROUP BY
    "r"."g1",
    "p"."period"
), "f0" AS (
  SELECT
    CAST(DATE_TRUNC('month', "d"."day") AS DATE) AS "g0",
    "d"."g1" AS "g1",
    AVG(CAST("d"."a0" AS DOUBLE)) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    CAST(DATE_TRUNC('month', "d"."day") AS DATE),
    "d"."g1"
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."g1" AS "OrdersModel__channel",
  "m"."a0" AS "ordersLast7DaysAverageNonEmpty"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC,
  "OrdersModel__channel" ASC
