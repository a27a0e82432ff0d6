SELECT DISTINCT
  "spine"."fiscal_quarter" AS "metric_time__fiscal_quarter"
FROM time_spine AS "spine"
WHERE
  "spine"."date_day" BETWEEN CAST('2024-01-01' AS Nullable(DATE)) AND CAST('2024-12-31' AS Nullable(DATE))
ORDER BY
  "metric_time__fiscal_quarter" ASC
SETTINGS join_use_nulls = 1
