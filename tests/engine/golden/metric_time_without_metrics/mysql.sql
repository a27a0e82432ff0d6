SELECT DISTINCT
  DATE_ADD(
    MAKEDATE(YEAR(`spine`.`date_day`), 1),
    INTERVAL (QUARTER(`spine`.`date_day`) - 1) QUARTER
  ) AS `metric_time__quarter`,
  MONTH(`spine`.`date_day`) AS `metric_time__extract_month`
FROM time_spine AS `spine`
WHERE
  `spine`.`date_day` BETWEEN '2023-02-10' AND '2023-05-03'
ORDER BY
  CASE WHEN DATE_ADD(
    MAKEDATE(YEAR(`spine`.`date_day`), 1),
    INTERVAL (QUARTER(`spine`.`date_day`) - 1) QUARTER
  ) IS NULL THEN 1 ELSE 0 END, DATE_ADD(
    MAKEDATE(YEAR(`spine`.`date_day`), 1),
    INTERVAL (QUARTER(`spine`.`date_day`) - 1) QUARTER
  ) ASC,
  CASE WHEN MONTH(`spine`.`date_day`) IS NULL THEN 1 ELSE 0 END, MONTH(`spine`.`date_day`) ASC
