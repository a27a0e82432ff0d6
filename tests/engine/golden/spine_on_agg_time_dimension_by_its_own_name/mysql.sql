WITH `result` AS (
  SELECT
    DATE_ADD(
      MAKEDATE(YEAR(`orders`.order_date), 1),
      INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
    ) AS `OrdersModel__orderDate__quarter`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN '2024-01-01' AND '2025-06-30'
  GROUP BY
    DATE_ADD(
      MAKEDATE(YEAR(`orders`.order_date), 1),
      INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
    )
), `periods` AS (
  SELECT DISTINCT
    DATE_ADD(
      MAKEDATE(YEAR(`spine`.`date_day`), 1),
      INTERVAL (QUARTER(`spine`.`date_day`) - 1) QUARTER
    ) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-01-01' AND '2025-06-30'
)
SELECT
  `p`.`period` AS `OrdersModel__orderDate__quarter`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`OrdersModel__orderDate__quarter` = `p`.`period`
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
