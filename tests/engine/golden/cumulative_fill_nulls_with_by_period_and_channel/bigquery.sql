WITH `f0_rows` AS (
  SELECT
    DATE(`orders`.order_date) AS `t`,
    `orders`.channel AS `g1`,
    UPPER(TRIM(`orders`.customer_ref)) AS `i0`
  FROM orders AS `orders`
  WHERE
    TRIM(`orders`.status) = 'returned'
), `f0_periods` AS (
  SELECT DISTINCT
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `period`
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
    AND `spine`.`date_day` BETWEEN CAST('2024-01-01' AS DATE) AND CAST('2024-03-31' AS DATE)
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    `r`.`g1` AS `g1`,
    COUNT(DISTINCT `r`.`i0`) AS `a0`
  FROM `f0_periods` AS `p`
  INNER JOIN `f0_rows` AS `r`
    ON `r`.`t` < DATE_ADD(`p`.`period`, INTERVAL 1 MONTH)
    AND `r`.`t` >= DATE_TRUNC(DATE(DATE_ADD(DATE_ADD(`p`.`period`, INTERVAL 1 MONTH), INTERVAL -1 DAY)), MONTH)
  GROUP BY
    `p`.`period`,
    `r`.`g1`
), `f1` AS (
  SELECT
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `g0`,
    `orders`.channel AS `g1`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN CAST('2024-01-01' AS DATE) AND CAST('2024-03-31' AS DATE)
    AND TRIM(`orders`.status) = 'returned'
  GROUP BY
    DATE_TRUNC(DATE(`orders`.order_date), MONTH),
    `orders`.channel
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
  `m`.`g0` AS `OrdersModel__orderDate__month`,
  `m`.`g1` AS `OrdersModel__channel`,
  COALESCE(`m`.`a0`, 0) AS `customersMonthToDateOrZero`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__orderDate__month` ASC NULLS LAST,
  `OrdersModel__channel` ASC NULLS LAST
