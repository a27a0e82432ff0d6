WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    ) AS `i0`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
), `f0_periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= DATE_SUB(
      DATE((
        SELECT
          MIN(`t`)
        FROM `f0_rows`
      )),
      INTERVAL (WEEKDAY((
        SELECT
          MIN(`t`)
        FROM `f0_rows`
      ))) DAY
    )
    AND `spine`.`date_day` < DATE_ADD(
      DATE_SUB(
        DATE((
          SELECT
            MAX(`t`)
          FROM `f0_rows`
        )),
        INTERVAL (WEEKDAY((
          SELECT
            MAX(`t`)
          FROM `f0_rows`
        ))) DAY
      ),
      INTERVAL 7 DAY
    )
    AND `spine`.`date_day` BETWEEN '2024-01-29' AND '2024-02-25'
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
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 DAY)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 DAY), INTERVAL -2 DAY)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    DATE_SUB(DATE(`d`.`day`), INTERVAL (WEEKDAY(`d`.`day`)) DAY) AS `g0`,
    DATE_SUB(DATE(`d`.`day`), INTERVAL (DAYOFMONTH(`d`.`day`) - 1) DAY) AS `g1`,
    AVG(CAST(`d`.`a0` AS DOUBLE)) AS `a0`
  FROM `f0_daily` AS `d`
  GROUP BY
    DATE_SUB(DATE(`d`.`day`), INTERVAL (WEEKDAY(`d`.`day`)) DAY),
    DATE_SUB(DATE(`d`.`day`), INTERVAL (DAYOFMONTH(`d`.`day`) - 1) DAY)
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__week`,
  `m`.`g1` AS `OrdersModel__orderDate__month`,
  `m`.`a0` AS `revenueLast2DaysAverage`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC,
  CASE WHEN `m`.`g1` IS NULL THEN 1 ELSE 0 END, `m`.`g1` ASC
