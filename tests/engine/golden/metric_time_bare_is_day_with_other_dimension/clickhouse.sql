SELECT
  toDate("orders".order_date) AS "metric_time",
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date BETWEEN CAST('2024-03-01' AS Nullable(DATE)) AND CAST('2024-03-07' AS Nullable(DATE))
GROUP BY
  toDate("orders".order_date),
  "orders".channel
ORDER BY
  "metric_time" ASC,
  "OrdersModel__channel" ASC
SETTINGS join_use_nulls = 1
