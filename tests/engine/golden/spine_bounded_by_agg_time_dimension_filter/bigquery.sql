WITH `result` AS (
  SELECT
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `metric_time__month`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-06-01' AS DATE)
  GROUP BY
    DATE_TRUNC(DATE(`orders`.order_date), MONTH)
), `periods` AS (
  SELECT DISTINCT
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= CAST('2024-06-01' AS DATE)
)
SELECT
  `p`.`period` AS `metric_time__month`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__month` = `p`.`period`
ORDER BY
  `metric_time__month` ASC NULLS LAST
