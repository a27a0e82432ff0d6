SELECT
  DATE(`orders`.order_date) AS `metric_time`,
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_date BETWEEN '2024-03-01' AND '2024-03-07'
GROUP BY
  DATE(`orders`.order_date),
  `orders`.channel
ORDER BY
  CASE WHEN DATE(`orders`.order_date) IS NULL THEN 1 ELSE 0 END, DATE(`orders`.order_date) ASC,
  CASE WHEN `orders`.channel IS NULL THEN 1 ELSE 0 END, `orders`.channel ASC
