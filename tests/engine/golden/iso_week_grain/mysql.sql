SELECT
  DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `OrdersModel__orderDate__week`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date <= '2023-02-28'
GROUP BY
  DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
ORDER BY
  CASE WHEN DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) IS NULL THEN 1 ELSE 0 END, DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) ASC
