SELECT
  toStartOfHour("payments".paid_at) AS "metric_time__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  "payments".paid_at >= CAST('2024-12-30' AS Nullable(DateTime))
GROUP BY
  toStartOfHour("payments".paid_at)
ORDER BY
  "metric_time__hour" ASC
SETTINGS join_use_nulls = 1
