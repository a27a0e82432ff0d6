WITH `f0` AS (
  SELECT
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `g0`,
    `orders`.channel AS `g1`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  WHERE
    TRIM(`orders`.status) <> 'cancelled'
    AND `orders`.order_date >= CAST('2024-07-01' AS DATE)
  GROUP BY
    DATE_TRUNC(DATE(`orders`.order_date), MONTH),
    `orders`.channel
), `f1_base` AS (
  SELECT
    `orders`.order_id AS `entity`,
    DATE(`orders`.order_date) AS `t`,
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `g0`,
    `orders`.channel AS `g1`
  FROM orders AS `orders`
  WHERE
    TRIM(`orders`.status) <> 'cancelled'
    AND `orders`.order_date >= CAST('2024-07-01' AS DATE)
), `f1_conversions` AS (
  SELECT
    ROW_NUMBER() OVER (ORDER BY DATE(`conversion_events`.paid_at) NULLS LAST) AS `id`,
    `conversion_events`.order_id AS `entity`,
    DATE(`conversion_events`.paid_at) AS `t`,
    `conversion_events`.order_id AS `v`
  FROM payments AS `conversion_events`
), `f1_attributed` AS (
  SELECT
    `c`.`v`,
    `b`.`g0`,
    `b`.`g1`,
    ROW_NUMBER() OVER (PARTITION BY `c`.`id` ORDER BY `b`.`t` DESC) AS `rn`
  FROM `f1_base` AS `b`
  INNER JOIN `f1_conversions` AS `c`
    ON `b`.`entity` = `c`.`entity`
    AND `b`.`t` <= `c`.`t`
    AND `b`.`t` > DATE_ADD(`c`.`t`, INTERVAL -2 DAY)
), `f1` AS (
  SELECT
    `g0` AS `g0`,
    `g1` AS `g1`,
    COUNT(DISTINCT `v`) AS `a1`
  FROM `f1_attributed`
  WHERE
    `rn` = 1
  GROUP BY
    `g0`,
    `g1`
), `merged` AS (
  SELECT
    `g0`,
    `g1`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`
  FROM (
    SELECT
      `g0`,
      `g1`,
      `a0`,
      NULL AS `a1`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      `g1`,
      NULL AS `a0`,
      `a1`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`,
    `g1`
)
SELECT
  `m`.`g0` AS `metric_time__month`,
  `m`.`g1` AS `OrdersModel__channel`,
  CAST(`m`.`a1` AS FLOAT64) / NULLIF(`m`.`a0`, 0) AS `paidWithinTwoDays`
FROM `merged` AS `m`
ORDER BY
  `metric_time__month` ASC NULLS LAST,
  `OrdersModel__channel` ASC NULLS LAST
