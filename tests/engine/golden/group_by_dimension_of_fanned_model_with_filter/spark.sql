WITH `f0` AS (
  SELECT
    `dedup`.`g0` AS `g0`,
    COUNT(`dedup`.`i0`) AS `a0`
  FROM (
    SELECT DISTINCT
      `orders`.order_id AS `__pk0`,
      `payments`.method AS `g0`,
      `orders`.order_id AS `i0`
    FROM orders AS `orders`
    LEFT JOIN payments AS `payments`
      ON `payments`.order_id = `orders`.order_id
    WHERE
      `orders`.channel = 'web'
  ) AS `dedup`
  GROUP BY
    `dedup`.`g0`
), `f1` AS (
  SELECT
    `payments`.method AS `g0`,
    COUNT(`payments`.payment_id) AS `a1`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
  WHERE
    `orders`.channel = 'web'
  GROUP BY
    `payments`.method
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
  `m`.`g0` AS `PaymentsModel__method`,
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `PaymentsModel__paymentCount`
FROM `merged` AS `m`
ORDER BY
  `PaymentsModel__method` ASC NULLS LAST
