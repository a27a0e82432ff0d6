WITH `result` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `OrdersModel__orderDate__week`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.channel = 'store'
    AND TRIM(`orders`.status) = 'returned'
    AND `orders`.order_date BETWEEN '2024-01-03' AND '2024-06-30'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
), `periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-01-03' AND '2024-06-30'
)
SELECT
  `p`.`period` AS `OrdersModel__orderDate__week`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`OrdersModel__orderDate__week` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
