SELECT
  `semi`.`g0` AS `PaymentsModel__paidAt__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnFirstDayPerMethod`
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE) AS `g0`,
    CASE
      WHEN CAST(`payments`.paid_at AS DATE) = MIN(CAST(`payments`.paid_at AS DATE)) OVER (
        PARTITION BY CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE), `payments`.method
      )
      THEN `payments`.amount
    END AS `i0`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `semi`.`g0`
ORDER BY
  `PaymentsModel__paidAt__quarter` ASC NULLS LAST
