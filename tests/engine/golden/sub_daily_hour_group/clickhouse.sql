SELECT
  toDateTime64(toStartOfHour("payments".paid_at), 6) AS "PaymentsModel__paidAt__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
WHERE
  "payments".paid_at < CAST('2023-01-08' AS Nullable(DateTime))
GROUP BY
  toDateTime64(toStartOfHour("payments".paid_at), 6)
ORDER BY
  "PaymentsModel__paidAt__hour" ASC
SETTINGS join_use_nulls = 1
