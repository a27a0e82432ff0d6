WITH `f0_periods` AS (
  SELECT
    CAST(`a`.`day` AS DATE) AS `period`,
    CAST(`b`.`day` AS DATE) AS `read`
  FROM (
    SELECT
      `spine`.`date_day` AS `day`,
      DENSE_RANK() OVER (ORDER BY `spine`.`fiscal_quarter` NULLS LAST) AS `k`,
      ROW_NUMBER() OVER (PARTITION BY `spine`.`fiscal_quarter` ORDER BY `spine`.`date_day` NULLS LAST) AS `rn`
    FROM time_spine AS `spine`
    WHERE
      NOT `spine`.`fiscal_quarter` IS NULL
  ) AS `a`
  INNER JOIN (
    SELECT
      `spine`.`date_day` AS `day`,
      DENSE_RANK() OVER (ORDER BY `spine`.`fiscal_quarter` NULLS LAST) AS `k`,
      ROW_NUMBER() OVER (PARTITION BY `spine`.`fiscal_quarter` ORDER BY `spine`.`date_day` NULLS LAST) AS `rn`
    FROM time_spine AS `spine`
    WHERE
      NOT `spine`.`fiscal_quarter` IS NULL
  ) AS `b`
    ON `b`.`k` = `a`.`k` AND `b`.`rn` = 1
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  INNER JOIN `f0_periods` AS `p`
    ON `p`.`read` = CAST(`orders`.order_date AS DATE)
  WHERE
    `p`.`period` BETWEEN CAST('2024-01-15' AS DATE) AND CAST('2024-06-15' AS DATE)
    AND `orders`.order_date BETWEEN CAST('2024-01-15' AS DATE) AND CAST('2024-06-15' AS DATE)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__day`,
  `m`.`a0` AS `ordersAtFiscalQuarterStart`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__day` ASC NULLS LAST
