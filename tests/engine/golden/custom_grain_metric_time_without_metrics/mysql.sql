SELECT DISTINCT
  `spine`.`fiscal_quarter` AS `metric_time__fiscal_quarter`
FROM time_spine AS `spine`
WHERE
  `spine`.`date_day` BETWEEN '2024-01-01' AND '2024-12-31'
ORDER BY
  CASE WHEN `spine`.`fiscal_quarter` IS NULL THEN 1 ELSE 0 END, `spine`.`fiscal_quarter` ASC
