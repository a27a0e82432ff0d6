WITH `f0` AS (
  SELECT
    CAST(DATE_TRUNC('week', `payments`.paid_at) AS DATE) AS `g0`,
    SUM(`payments`.amount) AS `a0`
  FROM payments AS `payments`
  GROUP BY
    CAST(DATE_TRUNC('week', `payments`.paid_at) AS DATE)
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('week', `orders`.order_date) AS DATE) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  GROUP BY
    CAST(DATE_TRUNC('week', `orders`.order_date) AS DATE)
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
  `m`.`g0` AS `metric_time__week`,
  `m`.`a0` AS `PaymentsModel__amountPaid`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `metric_time__week` DESC
LIMIT 3
