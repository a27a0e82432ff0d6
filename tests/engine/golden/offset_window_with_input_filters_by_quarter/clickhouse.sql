WITH "f0" AS (
  SELECT
    toStartOfQuarter("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web'
  GROUP BY
    toStartOfQuarter("orders".order_date)
), "f1_periods" AS (
  SELECT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    toStartOfQuarter("p"."period") AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON addYears("p"."period", -1) = CAST("orders".order_date AS Nullable(DATE))
  WHERE
    "orders".channel = 'web'
  GROUP BY
    toStartOfQuarter("p"."period")
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
  "m"."g0" AS "metric_time__quarter",
  "m"."a0" - "m"."a1" AS "webOrdersGrowthYoY"
FROM "merged" AS "m"
ORDER BY
  "metric_time__quarter" ASC
SETTINGS join_use_nulls = 1
