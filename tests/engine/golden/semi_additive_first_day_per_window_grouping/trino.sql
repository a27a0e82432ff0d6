SELECT
  "semi"."g0" AS "PaymentsModel__paidAt__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnFirstDayPerMethod"
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', "payments".paid_at) AS DATE) AS "g0",
    "payments".amount AS "i0",
    CAST("payments".paid_at AS DATE) AS "__day",
    MIN(CAST("payments".paid_at AS DATE)) OVER (
      PARTITION BY CAST(DATE_TRUNC('quarter', "payments".paid_at) AS DATE), "payments".method
    ) AS "__window"
  FROM payments AS "payments"
) AS "semi"
WHERE
  "semi"."__day" = "semi"."__window"
GROUP BY
  "semi"."g0"
ORDER BY
  "PaymentsModel__paidAt__quarter" ASC
