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
    AND "spine"."date_day" < CAST(CAST(DATE_TRUNC('week', (
      SELECT
        MAX("t")
      FROM "f0_rows"
    )) AS DATE) + INTERVAL '7' DAY AS DATE)
    AND "spine"."date_day" BETWEEN CAST('2024-04-22' AS DATE) AND CAST('2024-05-12' AS DATE)
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
    ON "r"."t" < CAST("p"."period" + INTERVAL '1' DAY AS DATE)
    AND "r"."t" >= CAST(DATE_TRUNC(
      'month',
      CAST(CAST("p"."period" + INTERVAL '1' DAY AS DATE) + INTERVAL '-1' DAY AS DATE)
    ) AS DATE)
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."g1",
    "ranked"."a0"
  FROM (
    SELECT
      CAST(DATE_TRUNC('week', "d"."day") AS DATE) AS "g0",
      CAST(DATE_TRUNC('month', "d"."day") AS DATE) AS "g1",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (
        PARTITION BY CAST(DATE_TRUNC('week', "d"."day") AS DATE), CAST(DATE_TRUNC('month', "d"."day") AS DATE)
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
