WITH `f0_periods` AS (
  SELECT
    DATE(`a`.`day`) AS `period`,
    DATE(`b`.`day`) AS `read`
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
    ON `b`.`k` = `a`.`k` - 1 AND `b`.`rn` = `a`.`rn`
), `f0` AS (
  SELECT
    `p`.`period` AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  INNER JOIN `f0_periods` AS `p`
    ON `p`.`read` = DATE(`orders`.order_date)
  GROUP BY
    `p`.`period`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__day`,
  `m`.`a0` AS `ordersAFiscalQuarterEarlier`
FROM `f0` AS `m`
ORDER BY
  `OrdersModel__orderDate__day` ASC NULLS LAST
