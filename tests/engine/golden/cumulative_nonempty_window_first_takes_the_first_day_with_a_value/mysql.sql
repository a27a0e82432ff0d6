WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
  WHERE
    `orders`.channel = 'store'
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
    ), INTERVAL 3 DAY)
    AND `spine`.`date_day` BETWEEN '2024-01-20' AND '2024-03-10'
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
  INNER JOIN `f0_days` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 DAY)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 DAY), INTERVAL -2 DAY)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    `ranked`.`g0`,
    `ranked`.`a0`
  FROM (
    SELECT
      DATE_SUB(DATE(`d`.`day`), INTERVAL (WEEKDAY(`d`.`day`)) DAY) AS `g0`,
      `d`.`a0` AS `a0`,
      ROW_NUMBER() OVER (
        PARTITION BY DATE_SUB(DATE(`d`.`day`), INTERVAL (WEEKDAY(`d`.`day`)) DAY)
        ORDER BY CASE WHEN `d`.`day` IS NULL THEN 1 ELSE 0 END, `d`.`day` ASC
      ) AS `__rank`
    FROM `f0_daily` AS `d`
  ) AS `ranked`
  WHERE
    `ranked`.`__rank` = 1
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__week`,
  `m`.`a0` AS `ordersLast2DaysFirstNonEmpty`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
