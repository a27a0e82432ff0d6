SELECT
  CAST(EXTRACT(DAYOFWEEK_ISO FROM `orders`.order_date) AS INT) AS `OrdersModel__orderDate__extract_dow`,
  CAST(EXTRACT(QUARTER FROM `orders`.order_date) AS INT) AS `OrdersModel__orderDate__extract_quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  CAST(EXTRACT(YEAR FROM `orders`.order_date) AS INT) = 2024
  AND CAST(EXTRACT(DOY FROM `orders`.order_date) AS INT) <= 100
GROUP BY
  CAST(EXTRACT(DAYOFWEEK_ISO FROM `orders`.order_date) AS INT),
  CAST(EXTRACT(QUARTER FROM `orders`.order_date) AS INT)
ORDER BY
  `OrdersModel__orderDate__extract_dow` ASC NULLS LAST,
  `OrdersModel__orderDate__extract_quarter` ASC NULLS LAST
