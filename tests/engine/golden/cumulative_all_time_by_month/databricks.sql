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
    CAST(DATE_TRUNC('month', `spine`.`date_day`) AS DATE) AS `period`
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
), `f0_days` AS (
  SELECT
    `t`,
    SUM(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    SUM(`r`.`i0`) AS `a0`
  FROM `f0_periods` AS `p`
  LEFT JOIN `f0_days` AS `r`
    ON `r`.`t` < ADD_MONTHS(`p`.`period`, 1)
  GROUP BY
    `p`.`period`
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE) AS `g0`,
    SUM(
      `order_items`.quantity * `order_items`.unit_price * (
        1 - COALESCE(`order_items`.discount, 0)
      )
    ) AS `a1`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
  GROUP BY
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE)
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
  `m`.`a0` AS `cumulativeRevenue`,
  `m`.`a1` AS `OrderItemsModel__revenue`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__orderDate__month` ASC NULLS LAST
