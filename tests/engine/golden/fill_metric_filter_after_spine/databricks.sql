WITH `result` AS (
  SELECT
    CAST(`orders`.order_date AS DATE) AS `metric_time__day`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `ordersPlacedFilled`,
    COALESCE(COUNT(`orders`.order_id), 0) >= 8 AS `_having0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= CAST('2024-02-01' AS DATE)
    AND `orders`.order_date < CAST('2024-03-01' AS DATE)
  GROUP BY
    CAST(`orders`.order_date AS DATE)
), `periods` AS (
  SELECT DISTINCT
    CAST(`spine`.`date_day` AS DATE) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= CAST('2024-02-01' AS DATE)
    AND `spine`.`date_day` < CAST('2024-03-01' AS DATE)
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
    THEN COALESCE(NULL, 0) >= 8
    ELSE `r`.`_having0`
  END
ORDER BY
  `metric_time__day` ASC NULLS LAST
