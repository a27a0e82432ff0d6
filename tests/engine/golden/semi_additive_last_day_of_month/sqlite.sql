SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__month",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay",
  SUM("semi"."i1") AS "PaymentsModel__amountPaid"
FROM (
  SELECT
    DATE("payments".paid_at, 'start of month') AS "g0",
    CASE
      WHEN DATE("payments".paid_at) = MAX(DATE("payments".paid_at)) OVER (PARTITION BY DATE("payments".paid_at, 'start of month'))
      THEN "payments".amount
    END AS "i0",
    "payments".amount AS "i1"
  FROM payments AS "payments"
) AS "semi"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__month" ASC NULLS LAST
