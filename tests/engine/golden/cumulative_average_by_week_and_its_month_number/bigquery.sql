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
    `spine`.`date_day` >= DATE_TRUNC(DATE((
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )), ISOWEEK)
    AND `spine`.`date_day` < DATE_ADD(
      DATE_TRUNC(DATE((
        SELECT
          MAX(`t`)
        FROM `f0_rows`
      )), ISOWEEK),
      INTERVAL 7 DAY
    )
    AND `spine`.`date_day` BETWEEN CAST('2024-01-22' AS DATE) AND CAST('2024-02-25' AS DATE)
), `f0_days` AS (
  SELECT
    `t`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0_daily` AS (
  SELECT
    `p`.`period` AS `day`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 DAY)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 DAY), INTERVAL -30 DAY)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    DATE_TRUNC(DATE(`d`.`day`), ISOWEEK) AS `g0`,
    CAST(EXTRACT(MONTH FROM `d`.`day`) AS INT64) AS `g1`,
    AVG(CAST(`d`.`a0` AS FLOAT64)) AS `a0`
  FROM `f0_daily` AS `d`
  GROUP BY
    DATE_TRUNC(DATE(`d`.`day`), ISOWEEK),
    CAST(EXTRACT(MONTH FROM `d`.`day`) AS INT64)
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__week`,
  `m`.`g1` AS `OrdersModel__orderDate__extract_month`,
  `m`.`a0` AS `ordersLast30DaysAverage`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__week` ASC NULLS LAST,
  `OrdersModel__orderDate__extract_month` ASC NULLS LAST
