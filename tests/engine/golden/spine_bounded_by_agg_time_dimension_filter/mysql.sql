WITH `result` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY) AS `metric_time__month`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= '2024-06-01'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY)
), `periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= '2024-06-01'
)
SELECT
  `p`.`period` AS `metric_time__month`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__month` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
