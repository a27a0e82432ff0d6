WITH `f0` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    `orders`.channel
), `f1` AS (
  SELECT
    `dedup`.`g0` AS `g0`,
    COUNT(`dedup`.`i1`) AS `a1`
  FROM (
    SELECT DISTINCT
      `orders`.order_id AS `__pk0`,
      `orders`.channel AS `g0`,
      `orders`.order_id AS `i1`
    FROM orders AS `orders`
    LEFT JOIN order_items AS `order_items`
      ON `order_items`.order_id = `orders`.order_id
    LEFT JOIN products AS `products`
      ON `order_items`.product_id = `products`.product_id
    WHERE
      `products`.category = 'toys'
  ) AS `dedup`
  GROUP BY
    `dedup`.`g0`
), `merged` AS (
  SELECT
    `g0`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`
  FROM (
    SELECT
      `g0`,
      `a0`,
      NULL AS `a1`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`
)
SELECT
  `m`.`g0` AS `OrdersModel__channel`,
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `toyOrderCount`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
