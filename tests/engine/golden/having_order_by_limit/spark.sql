SELECT
  `products`.product_name AS `ProductsModel__productName`,
  SUM(
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    )
  ) AS `OrderItemsModel__revenue`,
  SUM(`order_items`.quantity) AS `OrderItemsModel__unitsSold`
FROM order_items AS `order_items`
LEFT JOIN products AS `products`
  ON `order_items`.product_id = `products`.product_id
GROUP BY
  `products`.product_name
HAVING
  SUM(
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    )
  ) > 20000
ORDER BY
  `OrderItemsModel__revenue` DESC,
  `ProductsModel__productName` ASC NULLS LAST
LIMIT 5
