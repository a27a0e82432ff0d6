SELECT
  DATE_TRUNC(DATE(`orders`.order_date), YEAR) AS `OrdersModel__orderDate__year`,
  DATE_TRUNC(DATE(`orders`.order_date), QUARTER) AS `OrdersModel__orderDate__quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  `OrdersModel__orderDate__year`,
  `OrdersModel__orderDate__quarter`
ORDER BY
  `OrdersModel__orderDate__year` ASC NULLS LAST,
  `OrdersModel__orderDate__quarter` ASC NULLS LAST
