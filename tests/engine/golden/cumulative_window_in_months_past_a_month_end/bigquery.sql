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
    AND `spine`.`date_day` <= (
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    )
    AND `spine`.`date_day` >= CAST('2023-04-27' AS DATE)
    AND `spine`.`date_day` <= CAST('2023-05-01' AS DATE)
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
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 DAY)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 DAY), INTERVAL -2 MONTH)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__day`,
  `m`.`a0` AS `ordersLast2Months`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__day` ASC NULLS LAST
