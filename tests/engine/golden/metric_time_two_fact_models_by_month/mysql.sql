WITH `f0` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= '2024-01-01'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY)
), `f1` AS (
  SELECT
    DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY) AS `g0`,
    SUM(`payments`.amount) AS `a1`
  FROM payments AS `payments`
  WHERE
    `payments`.paid_at >= '2024-01-01'
  GROUP BY
    DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY)
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
  `m`.`g0` AS `metric_time__month`,
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `PaymentsModel__amountPaid`
FROM `merged` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
