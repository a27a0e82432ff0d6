WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
), `f0_periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` <= DATE_ADD((
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    ), INTERVAL 8 DAY)
    AND `spine`.`date_day` BETWEEN '2024-12-28' AND '2025-01-12'
), `f0_days` AS (
  SELECT
    `t`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  INNER JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 DAY)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 DAY), INTERVAL -7 DAY)
  GROUP BY
    `p`.`period`
), `result` AS (
  SELECT
    `m`.`g0` AS `metric_time__day`,
    COALESCE(`m`.`a0`, 0) AS `ordersLast7DaysFilled`
  FROM `f0` AS `m`
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-12-28' AND '2025-01-12'
)
SELECT
  `p`.`period` AS `metric_time__day`,
  COALESCE(`r`.`ordersLast7DaysFilled`, 0) AS `ordersLast7DaysFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__day` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
