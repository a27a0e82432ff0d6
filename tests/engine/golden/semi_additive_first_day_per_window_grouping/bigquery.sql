SELECT
  `semi`.`g0` AS `PaymentsModel__paidAt__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnFirstDayPerMethod`
FROM (
  SELECT
    DATE_TRUNC(DATE(`payments`.paid_at), QUARTER) AS `g0`,
    `payments`.amount AS `i0`,
    DATE(`payments`.paid_at) AS `__day`,
    MIN(DATE(`payments`.paid_at)) OVER (PARTITION BY DATE_TRUNC(DATE(`payments`.paid_at), QUARTER), `payments`.method) AS `__window`
  FROM payments AS `payments`
) AS `semi`
WHERE
  `semi`.`__day` = `semi`.`__window`
GROUP BY
  `PaymentsModel__paidAt__quarter`
ORDER BY
  `PaymentsModel__paidAt__quarter` ASC NULLS LAST
