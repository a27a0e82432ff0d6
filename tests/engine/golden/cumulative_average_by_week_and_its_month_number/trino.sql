WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST(DATE_TRUNC('week', (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )) AS DATE)
    AND "spine"."date_day" < DATE_ADD(
      'day',
      7,
      CAST(DATE_TRUNC('week', (
        SELECT
          MAX("t")
        FROM "f0_rows"
      )) AS DATE)
    )
    AND "spine"."date_day" BETWEEN CAST('2024-01-22' AS DATE) AND CAST('2024-02-25' AS DATE)
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
    ON "r"."t" < DATE_ADD('day', 1, "p"."period")
    AND "r"."t" >= DATE_ADD('day', -30, DATE_ADD('day', 1, "p"."period"))
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    CAST(DATE_TRUNC('week', "d"."day") AS DATE) AS "g0",
    CAST(EXTRACT(MONTH FROM "d"."day") AS INTEGER) AS "g1",
    AVG(CAST("d"."a0" AS DOUBLE)) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    CAST(DATE_TRUNC('week', "d"."day") AS DATE),
    CAST(EXTRACT(MONTH FROM "d"."day") AS INTEGER)
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."g1" AS "OrdersModel__orderDate__extract_month",
  "m"."a0" AS "ordersLast30DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC,
  "OrdersModel__orderDate__extract_month" ASC
