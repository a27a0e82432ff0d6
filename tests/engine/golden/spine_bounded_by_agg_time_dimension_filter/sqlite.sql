WITH "result" AS (
  SELECT
    DATE("orders".order_date, 'start of month') AS "metric_time__month",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= '2024-06-01'
  GROUP BY
    DATE("orders".order_date, 'start of month')
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= '2024-06-01'
)
SELECT
  "p"."period" AS "metric_time__month",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__month" = "p"."period"
ORDER BY
  "metric_time__month" ASC NULLS LAST
