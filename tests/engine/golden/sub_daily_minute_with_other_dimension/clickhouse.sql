SELECT
  toDateTime64(toStartOfMinute("payments".paid_at), 6) AS "PaymentsModel__paidAt__minute",
  "payments".method AS "PaymentsModel__method",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  toDate("payments".paid_at) = CAST('2024-03-01' AS Nullable(DATE))
GROUP BY
  toDateTime64(toStartOfMinute("payments".paid_at), 6),
  "payments".method
ORDER BY
  "PaymentsModel__paidAt__minute" ASC,
  "PaymentsModel__method" ASC
SETTINGS join_use_nulls = 1
