SELECT
  toStartOfYear("orders".shipped_at) AS "OrdersModel__shippedAt__year",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
GROUP BY
  toStartOfYear("orders".shipped_at)
ORDER BY
  "OrdersModel__shippedAt__year" ASC
SETTINGS join_use_nulls = 1
