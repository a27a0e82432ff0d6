SELECT
  CAST(DATE_TRUNC('year', `orders`.order_date) AS DATE) AS `OrdersModel__orderDate__year`,
  CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE) AS `OrdersModel__orderDate__quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  CAST(DATE_TRUNC('year', `orders`.order_date) AS DATE),
  CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE)
ORDER BY
  `OrdersModel__orderDate__year` ASC NULLS LAST,
  `OrdersModel__orderDate__quarter` ASC NULLS LAST
