SELECT
  "semi"."g0" AS "metric_time__quarter",
  SUM("semi"."i0") AS "PaymentsModel__paidOnLastDay"
FROM (
  SELECT
    CAST(DATE_TRUNC('quarter', "payments".paid_at) AS DATE) AS "g0",
    "payments".amount AS "i0",
    CAST("payments".paid_at AS DATE) AS "__day",
    MAX(CAST("payments".paid_at AS DATE)) OVER (PARTITION BY CAST(DATE_TRUNC('quarter', "payments".paid_at) AS DATE)) AS "__window"
  FROM payments AS "payments"
) AS "semi"
WHERE
  "semi"."__day" = "semi"."__window"
GROUP BY
  "semi"."g0"
ORDER BY
  "metric_time__quarter" ASC
