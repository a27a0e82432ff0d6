WITH `f0` AS (
  SELECT
    (
      SELECT
        `custom_spine`.`fiscal_quarter`
      FROM time_spine AS `custom_spine`
      WHERE
        `custom_spine`.`date_day` = DATE(`orders`.order_date)
    ) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    (
      SELECT
        `custom_spine`.`fiscal_quarter`
      FROM time_spine AS `custom_spine`
      WHERE
        `custom_spine`.`date_day` = DATE(`orders`.order_date)
    )
), `f1` AS (
  SELECT
    (
      SELECT
        `custom_spine`.`fiscal_quarter`
      FROM time_spine AS `custom_spine`
      WHERE
        `custom_spine`.`date_day` = DATE(`payments`.paid_at)
    ) AS `g0`,
    SUM(`payments`.amount) AS `a1`
  FROM payments AS `payments`
  GROUP BY
    (
      SELECT
        `custom_spine`.`fiscal_quarter`
      FROM time_spine AS `custom_spine`
      WHERE
        `custom_spine`.`date_day` = DATE(`payments`.paid_at)
    )
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
  `m`.`g0` AS `metric_time__fiscal_quarter`,
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `PaymentsModel__amountPaid`
FROM `merged` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
