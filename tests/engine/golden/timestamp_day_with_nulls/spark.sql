SELECT
  CAST(DATE_TRUNC('year', `orders`.shipped_at) AS DATE) AS `OrdersModel__shippedAt__year`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  CAST(DATE_TRUNC('year', `orders`.shipped_at) AS DATE)
ORDER BY
  `OrdersModel__shippedAt__year` ASC NULLS LAST
