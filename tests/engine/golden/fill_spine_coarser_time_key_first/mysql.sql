WITH `result` AS (
  SELECT
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY) AS `OrdersModel__orderDate__month`,
    DATE(`orders`.order_date) AS `OrdersModel__orderDate__day`,
    YEAR(`orders`.order_date) AS `OrdersModel__orderDate__extract_year`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN '2024-01-25' AND '2024-02-15'
  GROUP BY
    DATE_SUB(DATE(`orders`.order_date), INTERVAL (DAYOFMONTH(`orders`.order_date) - 1) DAY),
    DATE(`orders`.order_date),
    YEAR(`orders`.order_date)
), `periods` AS (
  SELECT DISTINCT
    DATE_SUB(DATE(`spine`.`date_day`), INTERVAL (DAYOFMONTH(`spine`.`date_day`) - 1) DAY) AS `period`,
    DATE(`spine`.`date_day`) AS `period1`,
    YEAR(`spine`.`date_day`) AS `period2`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-01-25' AND '2024-02-15'
)
SELECT
  `p`.`period` AS `OrdersModel__orderDate__month`,
  `p`.`period1` AS `OrdersModel__orderDate__day`,
  `p`.`period2` AS `OrdersModel__orderDate__extract_year`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`OrdersModel__orderDate__month` = `p`.`period`
  AND `r`.`OrdersModel__orderDate__day` = `p`.`period1`
  AND `r`.`OrdersModel__orderDate__extract_year` = `p`.`period2`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC,
  CASE WHEN `p`.`period1` IS NULL THEN 1 ELSE 0 END, `p`.`period1` ASC,
  CASE WHEN `p`.`period2` IS NULL THEN 1 ELSE 0 END, `p`.`period2` ASC
