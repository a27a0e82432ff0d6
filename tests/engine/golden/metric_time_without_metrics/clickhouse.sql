SELECT DISTINCT
  toStartOfQuarter("spine"."date_day") AS "metric_time__quarter",
  CAST(EXTRACT(MONTH FROM "spine"."date_day") AS Nullable(Int32)) AS "metric_time__extract_month"
FROM time_spine AS "spine"
WHERE
  "spine"."date_day" BETWEEN CAST('2023-02-10' AS Nullable(DATE)) AND CAST('2023-05-03' AS Nullable(DATE))
ORDER BY
  "metric_time__quarter" ASC,
  "metric_time__extract_month" ASC
SETTINGS join_use_nulls = 1
