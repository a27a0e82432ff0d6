WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period",
    "spine"."__start" AS "start"
  FROM (
    SELECT
      *,
      MIN("whole"."date_day") OVER (PARTITION BY "whole"."fiscal_quarter") AS "__start"
    FROM time_spine AS "whole"
  ) AS "spine"
  WHERE
    "spine"."date_day" >= CAST(DATE_TRUNC('month', (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )) AS DATE)
    AND "spine"."date_day" < CAST(CAST(DATE_TRUNC('month', (
      SELECT
        MAX("t")
      FROM "f0_rows"
    )) AS DATE) + INTERVAL '1 month' AS DATE)
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
    ON "r"."t" < CAST("p"."period" + INTERVAL '1 day' AS DATE)
    AND "r"."t" >= "p"."start"
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."a0"
  FROM (
    SELECT
      CAST(DATE_TRUNC('month', "d"."day") AS DATE) AS "g0",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (
        PARTITION BY CAST(DATE_TRUNC('month', "d"."day") AS DATE)
        ORDER BY "d"."day" DESC NULLS LAST
      ) AS "__rank"
    FROM "f0_daily" AS "d"
  ) AS "ranked"
  WHERE
    "ranked"."__rank" = 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."a0" AS "ordersFiscalQuarterToDate"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC
