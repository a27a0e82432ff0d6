SELECT DISTINCT
  "spine"."fiscal_quarter" AS "metric_time__fiscal_quarter"
FROM time_spine AS "spine"
WHERE
  "spine"."date_day" BETWEEN CAST('2024-01-01' AS DATE) AND CAST('2024-12-31' AS DATE)
ORDER BY
  "metric_time__fiscal_quarter" ASC
