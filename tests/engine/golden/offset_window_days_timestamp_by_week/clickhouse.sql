WITH "f0_periods" AS (
  SELECT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    toMonday("p"."period") AS "g0",
    "payments".method AS "g1",
    SUM("payments".amount) AS "a0"
  FROM payments AS "payments"
  INNER JOIN "f0_periods" AS "p"
    ON addDays("p"."period", -7) = CAST("payments".paid_at AS Nullable(DATE))
  GROUP BY
    toMonday("p"."period"),
    "payments".method
)
SELECT
  "m"."g0" AS "metric_time__week",
  "m"."g1" AS "PaymentsModel__method",
  "m"."a0" AS "receivedLastWeek"
FROM "f0" AS "m"
ORDER BY
  "metric_time__week" ASC,
  "PaymentsModel__method" ASC
SETTINGS join_use_nulls = 1
