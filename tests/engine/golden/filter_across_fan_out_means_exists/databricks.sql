WITH `f0` AS (
  SELECT
    COUNT(`dedup`.`i0`) AS `a0`
  FROM (
    SELECT DISTINCT
      `orders`.order_id AS `__pk0`,
      `orders`.order_id AS `i0`
    FROM orders AS `orders`
    LEFT JOIN order_items AS `order_items`
      ON `order_items`.order_id = `orders`.order_id
    LEFT JOIN products AS `products`
      ON `order_items`.product_id = `products`.product_id
    WHERE
      `products`.category = 'toys'
  ) AS `dedup`
), `f1` AS (
  SELECT
    SUM(`dedup`.`i1`) AS `a1`
  FROM (
    SELECT DISTINCT
      `payments`.payment_id AS `__pk0`,
      `payments`.amount AS `i1`
    FROM payments AS `payments`
    LEFT JOIN orders AS `orders`
      ON `payments`.order_id = `orders`.order_id
    LEFT JOIN order_items AS `order_items`
      ON `order_items`.order_id = `orders`.order_id
    LEFT JOIN products AS `products`
      ON `order_items`.product_id = `products`.product_id
    WHERE
      `products`.category = 'toys'
  ) AS `dedup`
), `merged` AS (
  SELECT
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`
  FROM (
    SELECT
      `a0`,
      NULL AS `a1`
    FROM `f0`
    UNION ALL
    SELECT
      NULL AS `a0`,
      `a1`
    FROM `f1`
  ) AS `stacked`
)
SELECT
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `PaymentsModel__amountPaid`
FROM `merged` AS `m`
