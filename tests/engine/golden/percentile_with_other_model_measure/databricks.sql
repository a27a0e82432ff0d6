WITH `f0` AS (
  SELECT
    TRIM(`orders`.status) AS `g0`,
    PERCENTILE(CAST(`payments`.amount AS DOUBLE), 0.5) AS `a0`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
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
  `m`.`a0` AS `PaymentsModel__medianPayment`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
