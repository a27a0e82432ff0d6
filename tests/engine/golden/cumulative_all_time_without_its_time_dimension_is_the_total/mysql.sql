WITH `f0` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    `orders`.channel
), `f1` AS (
  SELECT
    `orders`.channel AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  GROUP BY
    `orders`.channel
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
  `m`.`a0` AS `ordersAllTime`,
  `m`.`a1` AS `ordersAllTimeToSpineEnd`
FROM `merged` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
