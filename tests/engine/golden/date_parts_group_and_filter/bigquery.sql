SELECT
  MOD(EXTRACT(DAYOFWEEK FROM `orders`.order_date) + 5, 7) + 1 AS `OrdersModel__orderDate__extract_dow`,
  CAST(EXTRACT(QUARTER FROM `orders`.order_date) AS INT64) AS `OrdersModel__orderDate__extract_quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  CAST(EXTRACT(YEAR FROM `orders`.order_date) AS INT64) = 2024
  AND CAST(EXTRACT(DAYOFYEAR FROM `orders`.order_date) AS INT64) <= 100
GROUP BY
  `OrdersModel__orderDate__extract_dow`,
  `OrdersModel__orderDate__extract_quarter`
ORDER BY
  `OrdersModel__orderDate__extract_dow` ASC NULLS LAST,
  `OrdersModel__orderDate__extract_quarter` ASC NULLS LAST
