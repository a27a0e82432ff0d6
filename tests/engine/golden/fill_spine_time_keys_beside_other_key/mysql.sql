WITH `result` AS (
  SELECT
    DATE(`orders`.order_date) AS `metric_time__day`,
    `orders`.channel AS `OrdersModel__channel`,
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `metric_time__week`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `ordersPlacedFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date >= '2024-02-03' AND `orders`.order_date < '2024-02-13'
  GROUP BY
    DATE(`orders`.order_date),
    `orders`.channel,
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`,
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) AS `period2`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` >= '2024-02-03' AND `spine`.`date_day` < '2024-02-13'
)
SELECT
  `p`.`period` AS `metric_time__day`,
  `r`.`OrdersModel__channel` AS `OrdersModel__channel`,
  `p`.`period2` AS `metric_time__week`,
  COALESCE(`r`.`ordersPlacedFilled`, 0) AS `ordersPlacedFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`metric_time__day` = `p`.`period` AND `r`.`metric_time__week` = `p`.`period2`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC,
  CASE WHEN `r`.`OrdersModel__channel` IS NULL THEN 1 ELSE 0 END, `r`.`OrdersModel__channel` ASC,
  CASE WHEN `p`.`period2` IS NULL THEN 1 ELSE 0 END, `p`.`period2` ASC
