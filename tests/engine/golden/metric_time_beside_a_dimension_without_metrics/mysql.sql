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
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `metric_time__month`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-11-01' AND '2025-02-28'
) AS `periods`
ORDER BY
  CASE WHEN `dims`.`OrdersModel__channel` IS NULL THEN 1 ELSE 0 END, `dims`.`OrdersModel__channel` ASC,
  CASE WHEN `periods`.`metric_time__month` IS NULL THEN 1 ELSE 0 END, `periods`.`metric_time__month` ASC
