WITH `result` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY) AS `OrdersModel__orderDate__week`,
    COUNT(`orders`.order_id) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.channel = 'store' AND TRIM(`orders`.status) = 'returned'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (WEEKDAY(`orders`.order_date)) DAY)
), `periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) AS `period`
  FROM time_spine AS `spine`
  WHERE
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) >= (
      SELECT
        MIN(`OrdersModel__orderDate__week`)
      FROM `result`
    )
    AND DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (WEEKDAY(`spine`.`date_day`)) DAY) <= (
      SELECT
        MAX(`OrdersModel__orderDate__week`)
      FROM `result`
    )
)
SELECT
  `p`.`period` AS `OrdersModel__orderDate__week`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`OrdersModel__orderDate__week` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
