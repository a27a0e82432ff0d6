WITH "f0" AS (
  SELECT
    DAYOFWEEKISO("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    DAYOFWEEKISO("orders".order_date)
), "f1_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    DAYOFWEEKISO("p"."period") AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON CAST(DATEADD(MONTH, -1, "p"."period") AS DATE) = CAST("orders".order_date AS DATE)
  GROUP BY
    DAYOFWEEKISO("p"."period")
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__extract_dow",
  "m"."a0" - "m"."a1" AS "ordersGrowthMoM"
FROM "merged" AS "m"
ORDER BY
  "metric_time__extract_dow" ASC
