WITH `result` AS (
  SELECT
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE) AS `metric_time__month`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-06-01' AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE)
), `periods` AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', `spine`.`date_day`) AS DATE) AS `period`
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
