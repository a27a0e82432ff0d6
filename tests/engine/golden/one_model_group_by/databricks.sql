SELECT
  TRIM(`orders`.status) AS `OrdersModel__status`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  TRIM(`orders`.status)
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
