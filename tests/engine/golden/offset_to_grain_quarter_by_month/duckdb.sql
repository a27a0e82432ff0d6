WITH "f0_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    CAST(DATE_TRUNC('month', "p"."period") AS DATE) AS "g0",
    COUNT(DISTINCT UPPER(TRIM("orders".customer_ref))) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON CAST(DATE_TRUNC('quarter', "p"."period") AS DATE) = CAST("orders".order_date AS DATE)
  WHERE
    CAST(DATE_TRUNC('month', "p"."period") AS DATE) = "p"."period"
  GROUP BY
    CAST(DATE_TRUNC('month', "p"."period") AS DATE)
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "customersAtStartOfQuarter"
FROM "f0" AS "m"
ORDER BY
  "metric_time__month" ASC
