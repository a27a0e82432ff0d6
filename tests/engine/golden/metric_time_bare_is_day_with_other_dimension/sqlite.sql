SELECT
  DATE("orders".order_date) AS "metric_time",
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date BETWEEN '2024-03-01' AND '2024-03-07'
GROUP BY
  DATE("orders".order_date),
  "orders".channel
ORDER BY
  "metric_time" ASC NULLS LAST,
  "OrdersModel__channel" ASC NULLS LAST
