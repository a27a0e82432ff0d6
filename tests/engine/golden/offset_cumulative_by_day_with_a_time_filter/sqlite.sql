WITH "f0_shifted_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= '2024-03-01' AND "spine"."date_day" <= '2024-03-31'
), "f0_rows" AS (
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
    AND DATE("spine"."date_day") IN (
      SELECT
        CASE
          WHEN STRFTIME('%d', DATE("p"."period", '-1 months')) <> STRFTIME('%d', "p"."period")
          THEN DATE(DATE("p"."period", '-1 months'), 'start of month', '-1 days')
          ELSE DATE("p"."period", '-1 months')
        END
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
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE(DATE("p"."period", '+1 days'), '-1 days'), 'start of month')
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    "c"."a0" AS "a0"
  FROM "f0_shifted_periods" AS "p"
  INNER JOIN "f0_unshifted" AS "c"
    ON "c"."g0" = CASE
      WHEN STRFTIME('%d', DATE("p"."period", '-1 months')) <> STRFTIME('%d', "p"."period")
      THEN DATE(DATE("p"."period", '-1 months'), 'start of month', '-1 days')
      ELSE DATE("p"."period", '-1 months')
    END
)
SELECT
  "m"."g0" AS "metric_time__day",
  "m"."a0" AS "ordersMtdMonthAgo"
FROM "f0" AS "m"
ORDER BY
  "metric_time__day" ASC NULLS LAST
