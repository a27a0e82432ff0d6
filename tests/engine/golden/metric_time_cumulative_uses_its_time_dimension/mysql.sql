WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
), `f0_periods` AS (
  SELECT DISTINCT
    DATE_ADD(
      MAKEDATE(YEAR(`spine`.`date_day`), 1),
      INTERVAL (QUARTER(`spine`.`date_day`) - 1) QUARTER
    ) AS `period`
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
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 3 MONTH)
    AND `r`.`t` >= MAKEDATE(YEAR(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 3 MONTH), INTERVAL -1 DAY)), 1)
  GROUP BY
    `p`.`period`
), `f1` AS (
  SELECT
    DATE_ADD(
      MAKEDATE(YEAR(`payments`.paid_at), 1),
      INTERVAL (QUARTER(`payments`.paid_at) - 1) QUARTER
    ) AS `g0`,
    COUNT(`payments`.payment_id) AS `a1`
  FROM payments AS `payments`
  GROUP BY
    DATE_ADD(
      MAKEDATE(YEAR(`payments`.paid_at), 1),
      INTERVAL (QUARTER(`payments`.paid_at) - 1) QUARTER
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
  `m`.`g0` AS `metric_time__quarter`,
  `m`.`a0` AS `ordersYearToDate`,
  `m`.`a1` AS `PaymentsModel__paymentCount`
FROM `merged` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
