SELECT
  DATE("orders".shipped_at, 'start of year') AS "OrdersModel__shippedAt__year",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
GROUP BY
  DATE("orders".shipped_at, 'start of year')
ORDER BY
  "OrdersModel__shippedAt__year" ASC NULLS LAST
