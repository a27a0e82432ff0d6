SELECT
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) AS "metric_time__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  "payments".paid_at >= CAST('2024-12-30' AS TIMESTAMP)
GROUP BY
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP)
ORDER BY
  "metric_time__hour" ASC
