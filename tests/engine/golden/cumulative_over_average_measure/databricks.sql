WITH `f0_rows` AS (
  SELECT
    CAST(`payments`.paid_at AS DATE) AS `t`,
    `payments`.amount AS `i0`
  FROM payments AS `payments`
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', `spine`.`date_day`) AS DATE) AS `period`
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
    AVG(CAST(`r`.`i0` AS DOUBLE)) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_rows` AS `r`
    ON `r`.`t` < ADD_MONTHS(`p`.`period`, 1)
    AND `r`.`t` >= CAST(DATE_TRUNC('year', DATE_ADD(ADD_MONTHS(`p`.`period`, 1), -1)) AS DATE)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `PaymentsModel__paidAt__month`,
  `m`.`a0` AS `averagePaymentYearToDate`
FROM `f0` AS `m`
ORDER BY
  `PaymentsModel__paidAt__month` ASC NULLS LAST
