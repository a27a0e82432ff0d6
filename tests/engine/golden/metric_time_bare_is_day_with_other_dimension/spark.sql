SELECT
  CAST(`orders`.order_date AS DATE) AS `metric_time`,
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-03-07' AS DATE)
GROUP BY
  CAST(`orders`.order_date AS DATE),
  `orders`.channel
ORDER BY
  `metric_time` ASC NULLS LAST,
  `OrdersModel__channel` ASC NULLS LAST
