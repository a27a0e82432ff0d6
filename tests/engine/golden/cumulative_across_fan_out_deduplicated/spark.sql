WITH `f0_rows` AS (
  SELECT DISTINCT
    `orders`.order_id AS `__pk0`,
    CAST(`orders`.order_date AS DATE) AS `t`,
    `products`.category AS `g1`,
    `orders`.order_id AS `i0`
  FROM orders AS `orders`
  LEFT JOIN order_items AS `order_items`
    ON `order_items`.order_id = `orders`.order_id
  LEFT JOIN products AS `products`
    ON `order_items`.product_id = `products`.product_id
), `f0_periods` AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('year', `spine`.`date_day`) AS DATE) AS `period`
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
    `g1`,
    COUNT(`i0`) AS `i0`
  FROM `f0_rows`
  GROUP BY
    `t`,
    `g1`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    `r`.`g1` AS `g1`,
    COALESCE(SUM(`r`.`i0`), 0) AS `a0`
  FROM `f0_periods` AS `p`
  INNER JOIN `f0_days` AS `r`
    ON `r`.`t` < ADD_MONTHS(`p`.`period`, 12)
    AND `r`.`t` >= CAST(DATE_TRUNC('year', DATE_ADD(ADD_MONTHS(`p`.`period`, 12), -1)) AS DATE)
  GROUP BY
    `p`.`period`,
    `r`.`g1`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__year`,
  `m`.`g1` AS `ProductsModel__category`,
  `m`.`a0` AS `ordersYearToDate`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__year` ASC NULLS LAST,
  `ProductsModel__category` ASC NULLS LAST
