WITH `f0_rows` AS (
  SELECT
    DATE(`payments`.paid_at) AS `t`,
    `payments`.amount AS `i0`
  FROM payments AS `payments`
), `f0_periods` AS (
  SELECT DISTINCT
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `period`
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
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    APPROX_QUANTILES(CAST(`r`.`i0` AS FLOAT64), 2)[OFFSET(1)] AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_rows` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 MONTH)
    AND `r`.`t` >= DATE_TRUNC(DATE(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 MONTH), INTERVAL -1 DAY)), YEAR)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `PaymentsModel__paidAt__month`,
  `m`.`a0` AS `medianPaymentYearToDate`
FROM `f0` AS `m`
ORDER BY
  `PaymentsModel__paidAt__month` ASC NULLS LAST
