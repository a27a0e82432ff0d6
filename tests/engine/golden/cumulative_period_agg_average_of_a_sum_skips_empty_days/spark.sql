WITH `f0_rows` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `t`,
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    ) AS `i0`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(`spine`.`date_day` AS DATE) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= CAST(DATE_TRUNC('week', (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )) AS DATE)
    AND `spine`.`date_day` < DATE_ADD(CAST(DATE_TRUNC('week', (
      SELECT
        MAX(`t`)
      FROM `f0_rows`
    )) AS DATE), 7)
    AND `spine`.`date_day` BETWEEN CAST('2024-01-29' AS DATE) AND CAST('2024-02-25' AS DATE)
), `f0_days` AS (
  SELECT
    `t`,
    SUM(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0_daily` AS (
  SELECT
    `p`.`period` AS `day`,
    SUM(`r`.`i0`) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, 1)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, 1), -2)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    CAST(DATE_TRUNC('week', `d`.`day`) AS DATE) AS `g0`,
    CAST(DATE_TRUNC('month', `d`.`day`) AS DATE) AS `g1`,
    AVG(CAST(`d`.`a0` AS DOUBLE)) AS `a0`
  FROM `f0_daily` AS `d`
  GROUP BY
    CAST(DATE_TRUNC('week', `d`.`day`) AS DATE),
    CAST(DATE_TRUNC('month', `d`.`day`) AS DATE)
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__week`,
  `m`.`g1` AS `OrdersModel__orderDate__month`,
  `m`.`a0` AS `revenueLast2DaysAverage`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__week` ASC NULLS LAST,
  `OrdersModel__orderDate__month` ASC NULLS LAST
