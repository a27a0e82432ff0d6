SELECT
  CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) AS "OrdersModel__shippedAt__month",
  COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
FROM orders AS "orders"
GROUP BY
  CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE)
ORDER BY
  "OrdersModel__shippedAt__month" ASC
