SELECT
  DATE(`orders`.order_date) AS `OrdersModel__orderDate__day`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date >= DATE_ADD(CAST('2023-05-31' AS DATE), INTERVAL -3 MONTH)
  AND `orders`.order_date < CAST('2023-03-06' AS DATE)
GROUP BY
  `OrdersModel__orderDate__day`
ORDER BY
  `OrdersModel__orderDate__day` ASC NULLS LAST
