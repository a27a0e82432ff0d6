WITH `result` AS (
  SELECT
    DATE(`orders`.order_date) AS `metric_time__day`,
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY) AS `metric_time__month`,
    WEEKDAY(`orders`.order_date) + 1 AS `metric_time__extract_dow`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `ordersPlacedFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= '2024-02-03' AND `orders`.order_date < '2024-02-12'
  GROUP BY
    DATE(`orders`.order_date),
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY),
    WEEKDAY(`orders`.order_date) + 1
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`,
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period1`,
    WEEKDAY(`spine`.`date_day`) + 1 AS `period2`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= '2024-02-03' AND `spine`.`date_day` < '2024-02-12'
)
SELECT
  `p`.`period` AS `metric_time__day`,
  `p`.`period1` AS `metric_time__month`,
  `p`.`period2` AS `metric_time__extract_dow`,
  COALESCE(`r`.`ordersPlacedFilled`, 0) AS `ordersPlacedFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__day` = `p`.`period`
  AND `r`.`metric_time__month` = `p`.`period1`
  AND `r`.`metric_time__extract_dow` = `p`.`period2`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC,
  CASE WHEN `p`.`period1` IS NULL THEN 1 ELSE 0 END, `p`.`period1` ASC,
  CASE WHEN `p`.`period2` IS NULL THEN 1 ELSE 0 END, `p`.`period2` ASC
