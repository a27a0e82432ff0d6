SELECT
  `semi`.`g0` AS `metric_time__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE) AS `g0`,
    CASE
      WHEN CAST(`payments`.paid_at AS DATE) = MAX(CAST(`payments`.paid_at AS DATE)) OVER (PARTITION BY CAST(DATE_TRUNC('quarter', `payments`.paid_at) AS DATE))
      THEN `payments`.amount
    END AS `i0`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `semi`.`g0`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
