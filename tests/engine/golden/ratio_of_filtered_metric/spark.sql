SELECT
  TRIM(`orders`.status) AS `OrdersModel__status`,
  CAST(COUNT(CASE WHEN TRIM(`orders`.status) = 'returned' THEN `orders`.order_id END) AS DOUBLE) / NULLIF(COUNT(`orders`.order_id), 0) AS `returnRate`,
  COUNT(CASE WHEN TRIM(`orders`.status) = 'returned' THEN `orders`.order_id END) AS `returnedOrderCount`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  TRIM(`orders`.status)
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
