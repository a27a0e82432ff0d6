SELECT
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at) AS "PaymentsModel__paidAt__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
WHERE
  "payments".paid_at < '2023-01-08'
GROUP BY
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at)
ORDER BY
  "PaymentsModel__paidAt__hour" ASC NULLS LAST
