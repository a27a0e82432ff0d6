WITH "f0_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON CAST(CAST("p"."period" + INTERVAL '-2 day' AS DATE) + INTERVAL '-14 day' AS DATE) = CAST("orders".order_date AS DATE)
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
  "metric_time__day" ASC
