WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS Nullable(DATE)) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period",
    "spine"."__start" AS "start"
  FROM (
    SELECT
      *,
      MIN("whole"."date_day") OVER (PARTITION BY "whole"."fiscal_quarter") AS "__start"
    FROM time_spine AS "whole"
  ) AS "spine"
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
    AND "spine"."date_day" BETWEEN CAST('2024-01-20' AS Nullable(DATE)) AND CAST('2024-02-10' AS Nullable(DATE))
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
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < addDays("p"."period", 1) AND "r"."t" >= "p"."start"
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__day",
  "m"."a0" AS "ordersFiscalQuarterToDate"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__day" ASC
SETTINGS join_use_nulls = 1
