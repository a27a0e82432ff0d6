SELECT
  toStartOfSecond("payments".paid_at) AS "PaymentsModel__paidAt__second",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  toStartOfHour("payments".paid_at) = CAST('2023-01-01 09:00:00' AS Nullable(DateTime))
GROUP BY
  toStartOfSecond("payments".paid_at)
ORDER BY
  "PaymentsModel__paidAt__second" ASC
SETTINGS join_use_nulls = 1
