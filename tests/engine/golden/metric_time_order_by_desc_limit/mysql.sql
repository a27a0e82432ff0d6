WITH `f0` AS (
  SELECT
    DATE_SUB(DATE(`payments`.paid_at), INTERVAL (WEEKDAY(`payments`.paid_at)) DAY) AS `g0`,
    SUM(`payments`.amount) AS `a0`
  FROM payments AS `payments`
  GROUP BY
    DATE_SUB(DATE(`payments`.paid_at), INTERVAL (WEEKDAY(`payments`.paid_at)) DAY)
), `f1` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
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
