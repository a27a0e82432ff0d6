SELECT
  `dedup`.`g0` AS `ProductsModel__category`,
  SUM(`dedup`.`i0`) AS `PaymentsModel__amountPaid`,
  AVG(CAST(`dedup`.`i1` AS DOUBLE)) AS `PaymentsModel__averagePayment`
FROM (
  SELECT DISTINCT
    `payments`.payment_id AS `__pk0`,
    `products`.category AS `g0`,
    `payments`.amount AS `i0`,
    `payments`.amount AS `i1`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
  LEFT JOIN order_items AS `order_items`
    ON `order_items`.order_id = `orders`.order_id
  LEFT JOIN products AS `products`
    ON `order_items`.product_id = `products`.product_id
) AS `dedup`
GROUP BY
  `dedup`.`g0`
ORDER BY
  `ProductsModel__category` ASC NULLS LAST
