WITH `f0_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  INNER JOIN `f0_periods` AS `p`
    ON DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL -2 DAY), INTERVAL -14 DAY) = DATE(`orders`.order_date)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `metric_time__day`,
  2 * (
    2 * `m`.`a0`
  ) AS `ordersTwoWeeksAgoTwice`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
