SELECT
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
LEFT JOIN (
  SELECT
    `orders`.order_id AS `OrdersModel__orderId`,
    COUNT(`order_items`.line_number) AS `OrderItemsModel__lineCount`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
  GROUP BY
    `orders`.order_id
) AS `metric_00517931`
  ON `orders`.order_id = `metric_00517931`.`OrdersModel__orderId`
WHERE
  `metric_00517931`.`OrderItemsModel__lineCount` >= 3
GROUP BY
  `orders`.channel
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
