SELECT
  DATE("orders".shipped_at, 'start of month') AS "OrdersModel__shippedAt__month",
  COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
FROM orders AS "orders"
GROUP BY
  DATE("orders".shipped_at, 'start of month')
ORDER BY
  "OrdersModel__shippedAt__month" ASC NULLS LAST
