SELECT
  `dims`.`OrdersModel__channel` AS `OrdersModel__channel`,
  `periods`.`metric_time__month` AS `metric_time__month`
FROM (
  SELECT
    `orders`.channel AS `OrdersModel__channel`
  FROM orders AS `orders`
  WHERE
    `orders`.channel <> 'store'
  GROUP BY
    `orders`.channel
) AS `dims`
CROSS JOIN (
  SELECT DISTINCT
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `metric_time__month`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN CAST('2024-11-01' AS DATE) AND CAST('2025-02-28' AS DATE)
) AS `periods`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST,
  `metric_time__month` ASC NULLS LAST
