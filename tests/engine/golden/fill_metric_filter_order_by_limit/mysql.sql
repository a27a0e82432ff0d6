WITH `result` AS (
  SELECT
    DATE(`orders`.order_date) AS `metric_time__day`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `ordersPlacedFilled`,
    COALESCE(COUNT(`orders`.order_id), 0) < 3 AS `_having0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= '2024-02-01' AND `orders`.order_date < '2024-03-01'
  GROUP BY
    DATE(`orders`.order_date)
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= '2024-02-01' AND `spine`.`date_day` < '2024-03-01'
)
SELECT
  `p`.`period` AS `metric_time__day`,
  COALESCE(`r`.`ordersPlacedFilled`, 0) AS `ordersPlacedFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__day` = `p`.`period`
WHERE
  CASE
    WHEN `r`.`metric_time__day` IS NULL
    THEN COALESCE(NULL, 0) < 3
    ELSE `r`.`_having0`
  END
ORDER BY
  CASE WHEN COALESCE(`r`.`ordersPlacedFilled`, 0) IS NULL THEN 1 ELSE 0 END, COALESCE(`r`.`ordersPlacedFilled`, 0) ASC,
  `metric_time__day` DESC
LIMIT 9
