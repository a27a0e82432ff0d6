SELECT
  DATE("payments".paid_at, 'start of month') AS "PaymentsModel__paidAt__month",
  "payments".method AS "PaymentsModel__method",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
GROUP BY
  DATE("payments".paid_at, 'start of month'),
  "payments".method
ORDER BY
  "PaymentsModel__paidAt__month" ASC NULLS LAST,
  "PaymentsModel__method" ASC NULLS LAST
