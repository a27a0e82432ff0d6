WITH "result" AS (
  SELECT
    toStartOfMonth("orders".order_date) AS "metric_time__month",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-06-01' AS Nullable(DATE))
  GROUP BY
    toStartOfMonth("orders".order_date)
), "periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-06-01' AS Nullable(DATE))
)
SELECT
  "p"."period" AS "metric_time__month",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__month" = "p"."period"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
