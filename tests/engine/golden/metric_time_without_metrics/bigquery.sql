SELECT DISTINCT
  DATE_TRUNC(DATE(`spine`.`date_day`), QUARTER) AS `metric_time__quarter`,
  CAST(EXTRACT(MONTH FROM `spine`.`date_day`) AS INT64) AS `metric_time__extract_month`
FROM time_spine AS `spine`
WHERE
  `spine`.`date_day` BETWEEN CAST('2023-02-10' AS DATE) AND CAST('2023-05-03' AS DATE)
ORDER BY
  `metric_time__quarter` ASC NULLS LAST,
  `metric_time__extract_month` ASC NULLS LAST
