WITH `f0` AS (
  SELECT
    CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE) AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  GROUP BY
    CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE)
), `f1_periods` AS (
  SELECT
    CAST(`spine`.`date_day` AS DATE) AS `period`
  FROM time_spine AS `spine`
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('quarter', `p`.`period`) AS DATE) AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  INNER JOIN `f1_periods` AS `p`
    ON ADD_MONTHS(`p`.`period`, -12) = CAST(`orders`.order_date AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('quarter', `p`.`period`) AS DATE)
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
  ) AS DOUBLE) / NULLIF(`m`.`a1`, 0) AS `ordersGrowthYoY`,
  `m`.`a0` AS `OrdersModel__ordersPlaced`,
  `m`.`a1` AS `ordersLastYear`
FROM `merged` AS `m`
ORDER BY
  `metric_time__quarter` ASC NULLS LAST
