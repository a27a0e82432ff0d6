SELECT
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  (
    `orders`.order_date >= CAST('2023-02-01' AS DATE)
    AND `orders`.order_date < CAST('2023-12-01' AS DATE)
  )
  AND (
    NOT (
      `orders`.order_date >= CAST('2023-05-01' AS DATE)
      AND `orders`.order_date < CAST('2023-06-01' AS DATE)
    )
    OR `orders`.order_date IS NULL
  )
  AND `orders`.order_date >= CAST('2023-02-15' AS DATE)
  AND `orders`.order_date < CAST('2023-11-20' AS DATE)
  AND `orders`.order_date >= CAST('2023-02-03' AS DATE)
  AND `orders`.order_date < CAST('2023-11-26' AS DATE)
GROUP BY
  `orders`.channel
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
