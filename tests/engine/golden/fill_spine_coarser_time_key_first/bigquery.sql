WITH `result` AS (
  SELECT
    DATE_TRUNC(DATE(`orders`.order_date), MONTH) AS `OrdersModel__orderDate__month`,
    DATE(`orders`.order_date) AS `OrdersModel__orderDate__day`,
    CAST(EXTRACT(YEAR FROM `orders`.order_date) AS INT64) AS `OrdersModel__orderDate__extract_year`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN CAST('2024-01-25' AS DATE) AND CAST('2024-02-15' AS DATE)
  GROUP BY
    DATE_TRUNC(DATE(`orders`.order_date), MONTH),
    DATE(`orders`.order_date),
    CAST(EXTRACT(YEAR FROM `orders`.order_date) AS INT64)
), `periods` AS (
  SELECT DISTINCT
    DATE_TRUNC(DATE(`spine`.`date_day`), MONTH) AS `period`,
    DATE(`spine`.`date_day`) AS `period1`,
    CAST(EXTRACT(YEAR FROM `spine`.`date_day`) AS INT64) AS `period2`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN CAST('2024-01-25' AS DATE) AND CAST('2024-02-15' AS DATE)
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
  `OrdersModel__orderDate__month` ASC NULLS LAST,
  `OrdersModel__orderDate__day` ASC NULLS LAST,
  `OrdersModel__orderDate__extract_year` ASC NULLS LAST
