WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(
      DATE("spine"."date_day"),
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', DATE("spine"."date_day")) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    DATE("p"."period", 'start of month') AS "g0",
    COUNT(DISTINCT UPPER(TRIM("orders".customer_ref))) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
  WHERE
    DATE("p"."period", 'start of month') = "p"."period"
  GROUP BY
    DATE("p"."period", 'start of month')
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "customersAtStartOfQuarter"
FROM "f0" AS "m"
ORDER BY
  "metric_time__month" ASC NULLS LAST
