WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE(DATE("spine"."date_day"), '-2 days'), '-14 days') AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "metric_time__day",
  2 * (
    2 * "m"."a0"
  ) AS "ordersTwoWeeksAgoTwice"
FROM "f0" AS "m"
ORDER BY
  "metric_time__day" ASC NULLS LAST
