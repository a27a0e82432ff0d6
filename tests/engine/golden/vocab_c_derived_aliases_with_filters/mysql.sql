SELECT
  TRIM(`orders`.status) AS `OrdersModel__status`,
  COUNT(CASE WHEN `orders`.channel = 'web' THEN `orders`.order_id END) - COUNT(CASE WHEN `orders`.channel = 'store' THEN `orders`.order_id END) AS `webMinusStoreOrders`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  TRIM(`orders`.status)
ORDER BY
  CASE WHEN TRIM(`orders`.status) IS NULL THEN 1 ELSE 0 END, TRIM(`orders`.status) ASC
