SELECT
  DATE(`orders`.order_date) AS `OrdersModel__orderDate__day`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date >= DATE_ADD(CAST('2023-05-31' AS DATE), INTERVAL -3 MONTH)
  AND `orders`.order_date < '2023-03-06'
GROUP BY
  DATE(`orders`.order_date)
ORDER BY
  CASE WHEN DATE(`orders`.order_date) IS NULL THEN 1 ELSE 0 END, DATE(`orders`.order_date) ASC
