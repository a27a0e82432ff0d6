WITH `f0_rows` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `t`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
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
    AND `spine`.`date_day` BETWEEN CAST('2024-09-23' AS DATE) AND CAST('2024-10-13' AS DATE)
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
    ON `r`.`t` < DATE_ADD(`p`.`period`, 1)
    AND `r`.`t` >= DATE_ADD(DATE_ADD(`p`.`period`, 1), -7)
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    `ranked`.`g0`,
    `ranked`.`g1`,
    `ranked`.`a0`
  FROM (
    SELECT
      CAST(DATE_TRUNC('week', `d`.`day`) AS DATE) AS `g0`,
      CAST(DATE_TRUNC('quarter', `d`.`day`) AS DATE) AS `g1`,
      `d`.`a0` AS `a0`,
      ROW_NUMBER() OVER (
        PARTITION BY CAST(DATE_TRUNC('week', `d`.`day`) AS DATE), CAST(DATE_TRUNC('quarter', `d`.`day`) AS DATE)
        ORDER BY `d`.`day` DESC
      ) AS `__rank`
    FROM `f0_daily` AS `d`
  ) AS `ranked`
  WHERE
    `ranked`.`__rank` = 1
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('week', `orders`.order_date) AS DATE) AS `g0`,
    CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE) AS `g1`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN CAST('2024-09-23' AS DATE) AND CAST('2024-10-13' AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('week', `orders`.order_date) AS DATE),
    CAST(DATE_TRUNC('quarter', `orders`.order_date) AS DATE)
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
  `m`.`g0` AS `metric_time__week`,
  `m`.`g1` AS `metric_time__quarter`,
  `m`.`a0` AS `ordersLast7DaysCount`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `metric_time__week` ASC NULLS LAST,
  `metric_time__quarter` ASC NULLS LAST
