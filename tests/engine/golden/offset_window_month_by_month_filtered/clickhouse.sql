WITH "f0" AS (
  SELECT
    toStartOfMonth("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-01-01' AS Nullable(DATE))
  GROUP BY
    toStartOfMonth("orders".order_date)
), "f1_periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON addMonths("p"."period", -1) = toStartOfMonth("orders".order_date)
  WHERE
    toDate("p"."period") >= CAST('2024-01-01' AS Nullable(DATE))
    AND "orders".order_date >= CAST('2024-01-01' AS Nullable(DATE))
  GROUP BY
    "p"."period"
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
  "m"."g0" AS "metric_time__month",
  "m"."a0" - "m"."a1" AS "ordersMonthOverMonth"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
