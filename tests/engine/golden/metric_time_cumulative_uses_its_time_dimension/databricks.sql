WITH `f0_rows` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('quarter', `spine`.`date_day`) AS DATE) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` <= (
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    )
), `f0_days` AS (
  SELECT
    `t`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < ADD_MONTHS(`p`.`period`, 3)
    AND `r`.`t` >= CAST(DATE_TRUNC('year', DATE_ADD(ADD_MONTHS(`p`.`period`, 3), -1)) AS DATE)
  GROUP BY
    `p`.`period`
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE) AS `g0`,
    COUNT(`payments`.payment_id) AS `a1`
  FROM payments AS `payments`
  GROUP BY
    CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE)
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
  `m`.`g0` AS `metric_time__quarter`,
  `m`.`a0` AS `ordersYearToDate`,
  `m`.`a1` AS `PaymentsModel__paymentCount`
FROM `merged` AS `m`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
