SELECT
  toDateTime64(toStartOfSecond("payments".paid_at), 6) AS "PaymentsModel__paidAt__second",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  toDateTime64(toStartOfHour("payments".paid_at), 6) = CAST('2023-01-01 09:00:00' AS Nullable(DateTime))
GROUP BY
  toDateTime64(toStartOfSecond("payments".paid_at), 6)
ORDER BY
  "PaymentsModel__paidAt__second" ASC
SETTINGS join_use_nulls = 1
