SELECT
  toStartOfMonth("orders".shipped_at) AS "OrdersModel__shippedAt__month",
  COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
FROM orders AS "orders"
GROUP BY
  toStartOfMonth("orders".shipped_at)
ORDER BY
  "OrdersModel__shippedAt__month" ASC
SETTINGS join_use_nulls = 1
