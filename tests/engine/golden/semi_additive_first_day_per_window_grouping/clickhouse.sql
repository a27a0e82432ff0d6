SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnFirstDayPerMethod"
FROM (
  SELECT
    toStartOfQuarter("payments".paid_at) AS "g0",
    CASE
      WHEN CAST("payments".paid_at AS Nullable(DATE)) = MIN(CAST("payments".paid_at AS Nullable(DATE))) OVER (PARTITION BY toStartOfQuarter("payments".paid_at), "payments".method)
      THEN "payments".amount
    END AS "i0"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__quarter" ASC
SETTINGS join_use_nulls = 1
