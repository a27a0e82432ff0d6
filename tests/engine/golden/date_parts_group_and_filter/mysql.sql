SELECT
  WEEKDAY(`orders`.order_date) + 1 AS `OrdersModel__orderDate__extract_dow`,
  QUARTER(`orders`.order_date) AS `OrdersModel__orderDate__extract_quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  YEAR(`orders`.order_date) = 2024 AND DAYOFYEAR(`orders`.order_date) <= 100
GROUP BY
  WEEKDAY(`orders`.order_date) + 1,
  QUARTER(`orders`.order_date)
ORDER BY
  CASE WHEN WEEKDAY(`orders`.order_date) + 1 IS NULL THEN 1 ELSE 0 END, WEEKDAY(`orders`.order_date) + 1 ASC,
  CASE WHEN QUARTER(`orders`.order_date) IS NULL THEN 1 ELSE 0 END, QUARTER(`orders`.order_date) ASC
