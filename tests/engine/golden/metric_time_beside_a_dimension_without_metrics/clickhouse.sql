SELECT
  "dims"."OrdersModel__channel" AS "OrdersModel__channel",
  "periods"."metric_time__month" AS "metric_time__month"
FROM (
  SELECT
    "orders".channel AS "OrdersModel__channel"
  FROM orders AS "orders"
  WHERE
    "orders".channel <> 'store'
  GROUP BY
    "orders".channel
) AS "dims"
CROSS JOIN (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "metric_time__month"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-11-01' AS Nullable(DATE)) AND CAST('2025-02-28' AS Nullable(DATE))
) AS "periods"
ORDER BY
  "OrdersModel__channel" ASC,
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
