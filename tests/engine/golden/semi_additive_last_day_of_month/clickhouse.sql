SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__month",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay",
  SUM("semi"."i1") AS "PaymentsModel__amountPaid"
FROM (
  SELECT
    toStartOfMonth("payments".paid_at) AS "g0",
    CASE
      WHEN CAST("payments".paid_at AS Nullable(DATE)) = MAX(CAST("payments".paid_at AS Nullable(DATE))) OVER (PARTITION BY toStartOfMonth("payments".paid_at))
      THEN "payments".amount
    END AS "i0",
    "payments".amount AS "i1"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__month" ASC
SETTINGS join_use_nulls = 1
