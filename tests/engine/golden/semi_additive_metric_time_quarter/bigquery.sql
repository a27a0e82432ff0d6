SELECT
  `semi`.`g0` AS `metric_time__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`
FROM (
  SELECT
    DATE_TRUNC(DATE(`payments`.paid_at), QUARTER) AS `g0`,
    `payments`.amount AS `i0`,
    DATE(`payments`.paid_at) AS `__day`,
    MAX(DATE(`payments`.paid_at)) OVER (PARTITION BY DATE_TRUNC(DATE(`payments`.paid_at), QUARTER)) AS `__window`
  FROM payments AS `payments`
) AS `semi`
WHERE
  `semi`.`__day` = `semi`.`__window`
GROUP BY
  `metric_time__quarter`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
