WITH "f0_shifted_periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-03-01' AS Nullable(DATE))
    AND "spine"."date_day" <= CAST('2024-05-31' AS Nullable(DATE))
), "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS Nullable(DATE)) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
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
    AND toStartOfMonth("spine"."date_day") IN (
      SELECT
        addMonths("p"."period", -1)
      FROM "f0_shifted_periods" AS "p"
    )
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0_unshifted" AS (
  SELECT
    "p"."period" AS "g0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < addMonths("p"."period", 1)
    AND "r"."t" >= toStartOfMonth(addDays(addMonths("p"."period", 1), -1))
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    "c"."a0" AS "a0"
  FROM "f0_shifted_periods" AS "p"
  INNER JOIN "f0_unshifted" AS "c"
    ON "c"."g0" = addMonths("p"."period", -1)
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "ordersMtdMonthAgo"
FROM "f0" AS "m"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
