SELECT
  `semi`.`g0` AS `metric_time__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`
FROM (
  SELECT
    DATE_TRUNC(DATE(`payments`.paid_at), QUARTER) AS `g0`,
    CASE
      WHEN DATE(`payments`.paid_at) = MAX(DATE(`payments`.paid_at)) OVER (PARTITION BY DATE_TRUNC(DATE(`payments`.paid_at), QUARTER))
      THEN `payments`.amount
    END AS `i0`
  FROM payments AS `payments`
) AS `semi`
GROUP BY
  `metric_time__quarter`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
