SELECT DISTINCT
  DATE(
    "spine"."date_day",
    'start of month',
    '-' || (
      (
        CAST(STRFTIME('%m', "spine"."date_day") AS INTEGER) - 1
      ) % 3
    ) || ' months'
  ) AS "metric_time__quarter",
  CAST(STRFTIME('%m', "spine"."date_day") AS INTEGER) AS "metric_time__extract_month"
FROM time_spine AS "spine"
WHERE
  "spine"."date_day" BETWEEN '2023-02-10' AND '2023-05-03'
ORDER BY
  "metric_time__quarter" ASC NULLS LAST,
  "metric_time__extract_month" ASC NULLS LAST
