SELECT
  `semi`.`g0` AS `PaymentsModel__paidAt__month`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`,
  SUM(`semi`.`i1`) AS `PaymentsModel__amountPaid`
FROM (
  SELECT
    DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY) AS `g0`,
    CASE
      WHEN DATE(`payments`.paid_at) = MAX(DATE(`payments`.paid_at)) OVER (
        PARTITION BY DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY)
      )
      THEN `payments`.amount
    END AS `i0`,
    `payments`.amount AS `i1`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `semi`.`g0`
ORDER BY
  CASE WHEN `semi`.`g0` IS NULL THEN 1 ELSE 0 END, `semi`.`g0` ASC
