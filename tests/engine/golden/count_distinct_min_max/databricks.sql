WITH `f0` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(DISTINCT `order_items`.product_id) AS `a0`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
  GROUP BY
    `orders`.channel
), `f1` AS (
  SELECT
    `orders`.channel AS `g0`,
    MIN(`orders`.order_date) AS `a1`,
    MAX(`orders`.order_date) AS `a2`
  FROM orders AS `orders`
  GROUP BY
    `orders`.channel
), `merged` AS (
  SELECT
    `g0`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`,
    MAX(`a2`) AS `a2`
  FROM (
    SELECT
      `g0`,
      `a0`,
      NULL AS `a1`,
      NULL AS `a2`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`,
      `a2`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`
)
SELECT
  `m`.`g0` AS `OrdersModel__channel`,
  `m`.`a0` AS `OrderItemsModel__productsSold`,
  `m`.`a1` AS `OrdersModel__firstOrderDate`,
  `m`.`a2` AS `OrdersModel__lastOrderDate`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
