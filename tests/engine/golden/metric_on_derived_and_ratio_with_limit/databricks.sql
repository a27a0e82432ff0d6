SELECT
  `products`.category AS `ProductsModel__category`,
  CAST(SUM(
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    )
  ) AS DOUBLE) / NULLIF(SUM(`order_items`.quantity), 0) AS `revenuePerUnit`,
  CAST(SUM(
    `order_items`.quantity * `order_items`.unit_price * COALESCE(`order_items`.discount, 0)
  ) AS DOUBLE) / NULLIF(SUM(`order_items`.quantity * `order_items`.unit_price), 0) AS `discountShare`,
  AVG(CAST(`order_items`.unit_price AS DOUBLE)) AS `OrderItemsModel__averageUnitPrice`
FROM order_items AS `order_items`
LEFT JOIN products AS `products`
  ON `order_items`.product_id = `products`.product_id
GROUP BY
  `products`.category
ORDER BY
  `ProductsModel__category` ASC NULLS LAST
LIMIT 3
