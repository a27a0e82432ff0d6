SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__month",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay",
  SUM("semi"."i1") AS "PaymentsModel__amountPaid"
FROM (
  SELECT
    CAST(DATE_TRUNC('month', "payments".paid_at) AS DATE) AS "g0",
    CASE
      WHEN CAST("payments".paid_at AS DATE) = MAX(CAST("payments".paid_at AS DATE)) OVER (PARTITION BY CAST(DATE_TRUNC('month', "payments".paid_at) AS DATE))
      THEN "payments".amount
    END AS "i0",
    "payments".amount AS "i1"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__month" ASC
