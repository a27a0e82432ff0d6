SELECT
  CAST(DATE_TRUNC('second', "payments".paid_at) AS TIMESTAMP) AS "PaymentsModel__paidAt__second",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) = CAST('2023-01-01 09:00:00' AS TIMESTAMP)
GROUP BY
  CAST(DATE_TRUNC('second', "payments".paid_at) AS TIMESTAMP)
ORDER BY
  "PaymentsModel__paidAt__second" ASC
