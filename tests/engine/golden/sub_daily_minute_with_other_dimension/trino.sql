SELECT
  CAST(DATE_TRUNC('minute', "payments".paid_at) AS TIMESTAMP) AS "PaymentsModel__paidAt__minute",
  "payments".method AS "PaymentsModel__method",
  COUNT("payments".payment_id) AS "PaymentsModel__paymentCount"
FROM payments AS "payments"
WHERE
  CAST("payments".paid_at AS DATE) = CAST('2024-03-01' AS DATE)
GROUP BY
  CAST(DATE_TRUNC('minute', "payments".paid_at) AS TIMESTAMP),
  "payments".method
ORDER BY
  "PaymentsModel__paidAt__minute" ASC,
  "PaymentsModel__method" ASC
