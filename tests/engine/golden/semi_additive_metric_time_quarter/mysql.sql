SELECT
  `semi`.`g0` AS `metric_time__quarter`,
  SUM(`semi`.`i0`) AS `PaymentsModel__paidOnLastDay`
FROM (
  SELECT
    DATE_ADD(
      MAKEDATE(YEAR(`payments`.paid_at), 1),
      INTERVAL (QUARTER(`payments`.paid_at) - 1) QUARTER
    ) AS `g0`,
    `payments`.amount AS `i0`,
    DATE(`payments`.paid_at) AS `__day`,
    MAX(DATE(`payments`.paid_at)) OVER (
      PARTITION BY DATE_ADD(
        MAKEDATE(YEAR(`payments`.paid_at), 1),
        INTERVAL (QUARTER(`payments`.paid_at) - 1) QUARTER
      )
    ) AS `__window`
  FROM payments AS `payments`
) AS `semi`
WHERE
  `semi`.`__day` = `semi`.`__window`
GROUP BY
  `semi`.`g0`
ORDER BY
  CASE WHEN `semi`.`g0` IS NULL THEN 1 ELSE 0 END, `semi`.`g0` ASC
