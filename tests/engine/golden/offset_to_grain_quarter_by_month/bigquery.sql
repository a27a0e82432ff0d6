WITH `f0_periods` AS (
  SELECT
    DATE(`spine`.`date_day`) AS `period`
  FROM time_spine AS `spine`
), `f0` AS (
  SELECT
    DATE_TRUNC(DATE(`p`.`period`), MONTH) AS `g0`,
    COUNT(DISTINCT UPPER(TRIM(`orders`.customer_ref))) AS `a0`
  FROM orders AS `orders`
  INNER JOIN `f0_periods` AS `p`
    ON DATE_TRUNC(DATE(`p`.`period`), QUARTER) = DATE(`orders`.order_date)
  WHERE
    DATE_TRUNC(DATE(`p`.`period`), MONTH) = `p`.`period`
  GROUP BY
    DATE_TRUNC(DATE(`p`.`period`), MONTH)
)
SELECT
  `m`.`g0` AS `metric_time__month`,
  `m`.`a0` AS `customersAtStartOfQuarter`
FROM `f0` AS `m`
ORDER BY
  `metric_time__month` ASC NULLS LAST
