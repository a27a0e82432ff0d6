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
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f0_rows`
    )
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
  GROUP BY
    `p`.`period`
), `f0` AS (
  SELECT
    `ranked`.`g0`,
    `ranked`.`a0`
  FROM (
    SELECT
      CAST(DATE_TRUNC('month', `d`.`day`) AS DATE) AS `g0`,
      `d`.`a0` AS `a0`,
      ROW_NUMBER() OVER (PARTITION BY CAST(DATE_TRUNC('month', `d`.`day`) AS DATE) ORDER BY `d`.`day` DESC) AS `__rank`
    FROM `f0_daily` AS `d`
  ) AS `ranked`
  WHERE
    `ranked`.`__rank` = 1
), `f1_rows` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `t`,
    `orders`.order_id AS `i1`
  FROM orders AS `orders`
), `f1_periods` AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', `spine`.`date_day`) AS DATE) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= (
      SELECT
        MIN(`t`)
      FROM `f1_rows`
    )
    AND `spine`.`date_day` <= (
      SELECT
        MAX(`t`)
      FROM `f1_rows`
    )
), `f1_days` AS (
  SELECT
    `t`,
    COUNT(`i1`) AS `i1`
  FROM `f1_rows`
  GROUP BY
    `t`
), `f1` AS (
  SELECT
    `p`.`period` AS `g0`,
    COALESCE(SUM(`r`.`i1`), 0) AS `a1`
  FROM `f1_periods` AS `p`
  LEFT JOIN `f1_days` AS `r`
    ON `r`.`t` < ADD_MONTHS(`p`.`period`, 1)
  GROUP BY
    `p`.`period`
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
  `m`.`g0` AS `OrdersModel__orderDate__month`,
  `m`.`a0` AS `ordersAllTimeToSpineEnd`,
  `m`.`a1` AS `ordersAllTime`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__orderDate__month` ASC NULLS LAST
