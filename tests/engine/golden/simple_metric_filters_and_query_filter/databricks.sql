WITH `f0` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-01-01' AS DATE)
    AND TRIM(`orders`.status) = 'shipped'
  GROUP BY
    `orders`.channel
), `f1` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-01-01' AS DATE)
  GROUP BY
    `orders`.channel
), `f2` AS (
  SELECT
    `orders`.channel AS `g0`,
    SUM(`payments`.amount) AS `a2`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
  WHERE
    `orders`.order_date >= CAST('2024-01-01' AS DATE) AND `payments`.method = 'card'
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
      NULL AS `a2`
    FROM `f1`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      NULL AS `a1`,
      `a2`
    FROM `f2`
  ) AS `stacked`
  GROUP BY
    `g0`
)
SELECT
  `m`.`g0` AS `OrdersModel__channel`,
  `m`.`a0` AS `shippedOrderCount`,
  `m`.`a1` AS `OrdersModel__orderCount`,
  `m`.`a2` AS `cardPayments`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
