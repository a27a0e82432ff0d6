SELECT
  STRFTIME('%Y-%m-%d %H:%M:00', "payments".paid_at) AS "PaymentsModel__paidAt__minute",
  "payments".method AS "PaymentsModel__method",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  DATE("payments".paid_at) = '2024-03-01'
GROUP BY
  STRFTIME('%Y-%m-%d %H:%M:00', "payments".paid_at),
  "payments".method
ORDER BY
  "PaymentsModel__paidAt__minute" ASC NULLS LAST,
  "PaymentsModel__method" ASC NULLS LAST
