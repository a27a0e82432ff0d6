SELECT
  `semi`.`g0` AS `PaymentsModel__paidAt__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnFirstDayPerMethod`
FROM (
  SELECT
    DATE_TRUNC(DATE(`payments`.paid_at), QUARTER) AS `g0`,
    CASE
      WHEN DATE(`payments`.paid_at) = MIN(DATE(`payments`.paid_at)) OVER (PARTITION BY DATE_TRUNC(DATE(`payments`.paid_at), QUARTER), `payments`.method)
      THEN `payments`.amount
    END AS `i0`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `PaymentsModel__paidAt__quarter`
ORDER BY
  `PaymentsModel__paidAt__quarter` ASC NULLS LAST
