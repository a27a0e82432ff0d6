SELECT
  `dedup`.`g0` AS `PaymentsModel__paidAt__year`,
  `dedup`.`g1` AS `ProductsModel__category`,
  SUM(`dedup`.`i0`) AS `PaymentsModel__paidOnLastDay`
FROM (
  SELECT DISTINCT
    `payments`.payment_id AS `__pk0`,
    CAST(DATE_TRUNC('year', `payments`.paid_at) AS DATE) AS `g0`,
    `products`.category AS `g1`,
    `payments`.amount AS `i0`,
    CAST(`payments`.paid_at AS DATE) AS `__day`,
    MAX(CAST(`payments`.paid_at AS DATE)) OVER (PARTITION BY CAST(DATE_TRUNC('year', `payments`.paid_at) AS DATE)) AS `__window`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
  LEFT JOIN order_items AS `order_items`
    ON `order_items`.order_id = `orders`.order_id
  LEFT JOIN products AS `products`
    ON `order_items`.product_id = `products`.product_id
) AS `dedup`
WHERE
  `dedup`.`__day` = `dedup`.`__window`
GROUP BY
  `dedup`.`g0`,
  `dedup`.`g1`
ORDER BY
  `PaymentsModel__paidAt__year` ASC NULLS LAST,
  `ProductsModel__category` ASC NULLS LAST
