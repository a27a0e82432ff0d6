SELECT
  toStartOfMonth("payments".paid_at) AS "PaymentsModel__paidAt__month",
  "payments".method AS "PaymentsModel__method",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
GROUP BY
  toStartOfMonth("payments".paid_at),
  "payments".method
ORDER BY
  "PaymentsModel__paidAt__month" ASC,
  "PaymentsModel__method" ASC
SETTINGS join_use_nulls = 1
