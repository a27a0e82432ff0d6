WITH `result` AS (
  SELECT
    DATE(`orders`.order_date) AS `metric_time__day`,
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `metric_time__month`,
    MOD(EXTRACT(DAYOFWEEK FROM `orders`.order_date) + 5, 7) + 1 AS `metric_time__extract_dow`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `ordersPlacedFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-02-03' AS DATE)
    AND `orders`.order_date < CAST('2024-02-12' AS DATE)
  GROUP BY
    DATE(`orders`.order_date),
    DATE_TRUNC(DATE(`orders`.order_date), MONTH),
    MOD(EXTRACT(DAYOFWEEK FROM `orders`.order_date) + 5, 7) + 1
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`,
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `period1`,
    MOD(EXTRACT(DAYOFWEEK FROM `spine`.`date_day`) + 5, 7) + 1 AS `period2`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= CAST('2024-02-03' AS DATE)
    AND `spine`.`date_day` < CAST('2024-02-12' AS DATE)
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
  `metric_time__day` ASC NULLS LAST,
  `metric_time__month` ASC NULLS LAST,
  `metric_time__extract_dow` ASC NULLS LAST
