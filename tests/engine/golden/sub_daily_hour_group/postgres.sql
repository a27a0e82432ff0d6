SELECT
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) AS "PaymentsModel__paidAt__hour",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
WHERE
  "payments".paid_at < CAST('2023-01-08' AS TIMESTAMP)
GROUP BY
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP)
ORDER BY
  "PaymentsModel__paidAt__hour" ASC
