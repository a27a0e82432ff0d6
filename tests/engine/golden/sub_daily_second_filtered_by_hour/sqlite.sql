SELECT
  STRFTIME('%Y-%m-%d %H:%M:%S', "payments".paid_at) AS "PaymentsModel__paidAt__second",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at) = '2023-01-01 09:00:00'
GROUP BY
  STRFTIME('%Y-%m-%d %H:%M:%S', "payments".paid_at)
ORDER BY
  "PaymentsModel__paidAt__second" ASC NULLS LAST
