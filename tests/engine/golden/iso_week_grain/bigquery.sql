SELECT
  DATE_TRUNC(DATE(`orders`.order_date), ISOWEEK) AS `OrdersModel__orderDate__week`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date <= CAST('2023-02-28' AS DATE)
GROUP BY
  `OrdersModel__orderDate__week`
ORDER BY
  `OrdersModel__orderDate__week` ASC NULLS LAST
