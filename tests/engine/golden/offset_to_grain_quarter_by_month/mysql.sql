WITH `f0_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f0` AS (
  SELECT
    DATE_SUB(DATE(`p`.`period`), INTERVAL (DAYOFMONTH(`p`.`period`) - 1) DAY) AS `g0`,
    COUNT(DISTINCT UPPER(TRIM(`orders`.customer_ref))) AS `a0`
  FROM orders AS `orders`
  INNER JOIN `f0_periods` AS `p`
    ON DATE_ADD(MAKEDATE(YEAR(`p`.`period`), 1), INTERVAL (QUARTER(`p`.`period`) - 1) QUARTER) = DATE(`orders`.order_date)
  WHERE
    DATE_SUB(DATE(`p`.`period`), INTERVAL (DAYOFMONTH(`p`.`period`) - 1) DAY) = `p`.`period`
  GROUP BY
    DATE_SUB(DATE(`p`.`period`), INTERVAL (DAYOFMONTH(`p`.`period`) - 1) DAY)
)
SELECT
  `m`.`g0` AS `metric_time__month`,
  `m`.`a0` AS `customersAtStartOfQuarter`
FROM `f0` AS `m`
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
