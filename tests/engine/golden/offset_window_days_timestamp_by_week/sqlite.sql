WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE("spine"."date_day"), '-7 days') AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    DATE("p"."period", 'weekday 0', '-6 days') AS "g0",
    "payments".method AS "g1",
    SUM("payments".amount) AS "a0"
  FROM payments AS "payments"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = DATE("payments".paid_at)
  GROUP BY
    DATE("p"."period", 'weekday 0', '-6 days'),
    "payments".method
)
SELECT
  "m"."g0" AS "metric_time__week",
  "m"."g1" AS "PaymentsModel__method",
  "m"."a0" AS "receivedLastWeek"
FROM "f0" AS "m"
ORDER BY
  "metric_time__week" ASC NULLS LAST,
  "PaymentsModel__method" ASC NULLS LAST
