WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    UPPER(TRIM(`orders`.customer_ref)) AS `i0`
  FROM orders AS `orders`
), `f0_periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period`
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
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COUNT(DISTINCT `r`.`i0`) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_rows` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 MONTH)
    AND `r`.`t` >= MAKEDATE(YEAR(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 MONTH), INTERVAL -1 DAY)), 1)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__month`,
  `m`.`a0` AS `customersYearToDate`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
