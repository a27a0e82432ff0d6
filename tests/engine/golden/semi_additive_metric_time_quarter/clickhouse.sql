SELECT
  "semi"."g0" AS "metric_time__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay"
FROM (
  SELECT
    toStartOfQuarter("payments".paid_at) AS "g0",
    CASE
      WHEN CAST("payments".paid_at AS Nullable(DATE)) = MAX(CAST("payments".paid_at AS Nullable(DATE))) OVER (PARTITION BY toStartOfQuarter("payments".paid_at))
      THEN "payments".amount
    END AS "i0"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "metric_time__quarter" ASC
SETTINGS join_use_nulls = 1
