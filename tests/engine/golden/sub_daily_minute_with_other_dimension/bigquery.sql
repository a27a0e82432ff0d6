SELECT
  TIMESTAMP_TRUNC(`payments`.paid_at, MINUTE) AS `PaymentsModel__paidAt__minute`,
  `payments`.method AS `PaymentsModel__method`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
WHERE
  DATE(`payments`.paid_at) = CAST('2024-03-01' AS DATE)
GROUP BY
  `PaymentsModel__paidAt__minute`,
  `PaymentsModel__method`
ORDER BY
  `PaymentsModel__paidAt__minute` ASC NULLS LAST,
  `PaymentsModel__method` ASC NULLS LAST
