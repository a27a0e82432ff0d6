WITH `f0` AS (
  SELECT
    DATE_TRUNC(DATE(`orders`.order_date), QUARTER) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    DATE_TRUNC(DATE(`orders`.order_date), QUARTER)
), `f1_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f1` AS (
  SELECT
    DATE_TRUNC(DATE(`p`.`period`), QUARTER) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  INNER JOIN `f1_periods` AS `p`
    ON DATE_ADD(`p`.`period`, INTERVAL -1 YEAR) = DATE(`orders`.order_date)
  GROUP BY
    DATE_TRUNC(DATE(`p`.`period`), QUARTER)
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
  `m`.`g0` AS `metric_time__quarter`,
  CAST((
    `m`.`a0` - `m`.`a1`
  ) AS FLOAT64) / NULLIF(`m`.`a1`, 0) AS `ordersGrowthYoY`,
  `m`.`a0` AS `OrdersModel__ordersPlaced`,
  `m`.`a1` AS `ordersLastYear`
FROM `merged` AS `m`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
