SELECT
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at) AS "metric_time__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  "payments".paid_at >= '2024-12-30'
GROUP BY
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at)
ORDER BY
  "metric_time__hour" ASC NULLS LAST
