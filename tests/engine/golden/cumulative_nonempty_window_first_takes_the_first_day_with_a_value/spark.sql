WITH `f0_rows` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
  WHERE
    `orders`.channel = 'store'
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(`spine`.`date_day` AS DATE) AS `period`
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
    ), 3)
    AND `spine`.`date_day` BETWEEN CAST('2024-01-20' AS DATE) AND CAST('2024-03-10' AS DATE)
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
    ON `r`.`t` < DATE_ADD(`p`.`period`, 1)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, 1), -2)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    `ranked`.`g0`,
    `ranked`.`a0`
  FROM (
    SELECT
      CAST(DATE_TRUNC('week', `d`.`day`) AS DATE) AS `g0`,
      `d`.`a0` AS `a0`,
      ROW_NUMBER() OVER (
        PARTITION BY CAST(DATE_TRUNC('week', `d`.`day`) AS DATE)
        ORDER BY `d`.`day` ASC NULLS LAST
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
  `OrdersModel__orderDate__week` ASC NULLS LAST
