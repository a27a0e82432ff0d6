WITH `result` AS (
  SELECT
    DATE(`orders`.order_date) AS `OrdersModel__orderDate__day`,
    COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`,
    COALESCE(COUNT(`orders`.order_id), 0) < 2 AS `_having0`
  FROM orders AS `orders`
  WHERE
    `orders`.order_date BETWEEN '2024-02-01' AND '2024-02-29'
  GROUP BY
    DATE(`orders`.order_date)
), `periods` AS (
  SELECT DISTINCT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
  WHERE
    `spine`.`date_day` BETWEEN '2024-02-01' AND '2024-02-29'
)
SELECT
  `p`.`period` AS `OrdersModel__orderDate__day`,
  COALESCE(`r`.`orderCountFilled`, 0) AS `orderCountFilled`
FROM `periods` AS `p`
LEFT JOIN `result` AS `r`
  ON `r`.`OrdersModel__orderDate__day` = `p`.`period`
WHERE
  CASE
    WHEN `r`.`OrdersModel__orderDate__day` IS NULL
    THEN COALESCE(NULL, 0) < 2
    ELSE `r`.`_having0`
  END
ORDER BY
  CASE WHEN `p`.`period` IS NULL THEN 1 ELSE 0 END, `p`.`period` ASC
