WITH `f0` AS (
  SELECT
    WEEKDAY(`orders`.order_date) + 1 AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    WEEKDAY(`orders`.order_date) + 1
), `f1_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f1` AS (
  SELECT
    WEEKDAY(`p`.`period`) + 1 AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  INNER JOIN `f1_periods` AS `p`
    ON DATE_ADD(`p`.`period`, INTERVAL -1 MONTH) = DATE(`orders`.order_date)
  GROUP BY
    WEEKDAY(`p`.`period`) + 1
), `merged` AS (
  SELECT
    `g0`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`
  FROM (
    SELECT
      `g0`,
      `a0`,
      NULL AS `a1`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`
)
SELECT
  `m`.`g0` AS `metric_time__extract_dow`,
  `m`.`a0` - `m`.`a1` AS `ordersGrowthMoM`
FROM `merged` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
