SELECT
  `semi`.`g0` AS `PaymentsModel__paidAt__month`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`,
  SUM(`semi`.`i1`) AS `PaymentsModel__amountPaid`
FROM (
  SELECT
    DATE_TRUNC(DATE(`payments`.paid_at), MONTH) AS `g0`,
    CASE
      WHEN DATE(`payments`.paid_at) = MAX(DATE(`payments`.paid_at)) OVER (PARTITION BY DATE_TRUNC(DATE(`payments`.paid_at), MONTH))
      THEN `payments`.amount
    END AS `i0`,
    `payments`.amount AS `i1`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `PaymentsModel__paidAt__month`
ORDER BY
  `PaymentsModel__paidAt__month` ASC NULLS LAST
