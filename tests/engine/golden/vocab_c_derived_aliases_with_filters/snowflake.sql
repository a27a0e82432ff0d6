SELECT
  TRIM("orders".status) AS "OrdersModel__status",
  COUNT(CASE WHEN "orders".channel = 'web' THEN "orders".order_id END) - COUNT(CASE WHEN "orders".channel = 'store' THEN "orders".order_id END) AS "webMinusStoreOrders",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
GROUP BY
  TRIM("orders".status)
ORDER BY
  "OrdersModel__status" ASC
