SELECT
  toDateTime64(toStartOfHour("payments".paid_at), 6) AS "metric_time__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  "payments".paid_at >= CAST('2024-12-30' AS Nullable(DateTime))
GROUP BY
  toDateTime64(toStartOfHour("payments".paid_at), 6)
ORDER BY
  "metric_time__hour" ASC
SETTINGS join_use_nulls = 1
