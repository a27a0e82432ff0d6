SELECT
  `dedup`.`g0` AS `ProductsModel__category`,
  COUNT(`dedup`.`i0`) AS `OrdersModel__orderCount`
FROM (
  SELECT DISTINCT
    `orders`.order_id AS `__pk0`,
    `products`.category AS `g0`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
  LEFT JOIN order_items AS `order_items`
    ON `order_items`.order_id = `orders`.order_id
  LEFT JOIN products AS `products`
    ON `order_items`.product_id = `products`.product_id
) AS `dedup`
GROUP BY
  `dedup`.`g0`
ORDER BY
  `ProductsModel__category` ASC NULLS LAST
