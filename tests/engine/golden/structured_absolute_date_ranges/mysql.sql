SELECT
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  (
    `orders`.order_date >= '2023-02-01' AND `orders`.order_date < '2023-12-01'
  )
  AND (
    NOT (
      `orders`.order_date >= '2023-05-01' AND `orders`.order_date < '2023-06-01'
    )
    OR `orders`.order_date IS NULL
  )
  AND `orders`.order_date >= '2023-02-15'
  AND `orders`.order_date < '2023-11-20'
  AND `orders`.order_date >= '2023-02-03'
  AND `orders`.order_date < '2023-11-26'
GROUP BY
  `orders`.channel
ORDER BY
  CASE WHEN `orders`.channel IS NULL THEN 1 ELSE 0 END, `orders`.channel ASC
