WITH "f0_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    CAST(DATEADD(DAY, -(
      DAYOFWEEKISO(CAST("p"."period" AS DATE)) - 1
    ), CAST("p"."period" AS DATE)) AS DATE) AS "g0",
    "payments".method AS "g1",
    SUM("payments".amount) AS "a0"
  FROM payments AS "payments"
  INNER JOIN "f0_periods" AS "p"
    ON CAST(DATEADD(DAY, -7, "p"."period") AS DATE) = CAST("payments".paid_at AS DATE)
  GROUP BY
    CAST(DATEADD(DAY, -(
      DAYOFWEEKISO(CAST("p"."period" AS DATE)) - 1
    ), CAST("p"."period" AS DATE)) AS DATE),
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
