WITH `f0_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f0` AS (
  SELECT
    DATE_SUB(DATE(`p`.`period`), INTERVAL (WEEKDAY(`p`.`period`)) DAY) AS `g0`,
    `payments`.method AS `g1`,
    SUM(`payments`.amount) AS `a0`
  FROM payments AS `payments`
  INNER JOIN `f0_periods` AS `p`
    ON DATE_ADD(`p`.`period`, INTERVAL -7 DAY) = DATE(`payments`.paid_at)
  GROUP BY
    DATE_SUB(DATE(`p`.`period`), INTERVAL (WEEKDAY(`p`.`period`)) DAY),
    `payments`.method
)
SELECT
  `m`.`g0` AS `metric_time__week`,
  `m`.`g1` AS `PaymentsModel__method`,
  `m`.`a0` AS `receivedLastWeek`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC,
  CASE WHEN `m`.`g1` IS NULL THEN 1 ELSE 0 END, `m`.`g1` ASC
