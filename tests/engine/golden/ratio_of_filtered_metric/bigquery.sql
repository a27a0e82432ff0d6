WITH `f0` AS (
  SELECT
    TRIM(`orders`.status) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  WHERE
    TRIM(`orders`.status) = 'returned'
  GROUP BY
    TRIM(`orders`.status)
), `f1` AS (
  SELECT
    TRIM(`orders`.status) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  GROUP BY
    TRIM(`orders`.status)
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
  `m`.`g0` AS `OrdersModel__status`,
  CAST(`m`.`a0` AS FLOAT64) / NULLIF(`m`.`a1`, 0) AS `returnRate`,
  `m`.`a0` AS `returnedOrderCount`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
