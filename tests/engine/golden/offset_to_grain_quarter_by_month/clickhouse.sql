WITH "f0_periods" AS (
  SELECT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    toStartOfMonth("p"."period") AS "g0",
    COUNT(DISTINCT UPPER(TRIM("orders".customer_ref))) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON toStartOfQuarter("p"."period") = CAST("orders".order_date AS Nullable(DATE))
  WHERE
    toStartOfMonth("p"."period") = "p"."period"
  GROUP BY
    toStartOfMonth("p"."period")
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "customersAtStartOfQuarter"
FROM "f0" AS "m"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
