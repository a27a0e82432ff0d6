WITH `f0_shifted_periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= '2024-03-01' AND `spine`.`date_day` <= '2024-05-31'
), `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
), `f0_periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period`
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
    AND DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) IN (
      SELECT
        DATE_ADD(`p`.`period`, INTERVAL -1 MONTH)
      FROM `f0_shifted_periods` AS `p`
    )
), `f0_days` AS (
  SELECT
    `t`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0_unshifted` AS (
  SELECT
    `p`.`period` AS `g0`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 MONTH)
    AND `r`.`t` >= DATE_SUB(
      DATE(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 MONTH), INTERVAL -1 DAY)),
      INTERVAL (DAYOFMONTH(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 MONTH), INTERVAL -1 DAY)) - 1) DAY
    )
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    `c`.`a0` AS `a0`
  FROM `f0_shifted_periods` AS `p`
  INNER JOIN `f0_unshifted` AS `c`
    ON `c`.`g0` = DATE_ADD(`p`.`period`, INTERVAL -1 MONTH)
)
SELECT
  `m`.`g0` AS `metric_time__month`,
  `m`.`a0` AS `ordersMtdMonthAgo`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
