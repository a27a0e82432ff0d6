SELECT
  TIMESTAMP_TRUNC(`payments`.paid_at, HOUR) AS `PaymentsModel__paidAt__hour`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
WHERE
  `payments`.paid_at < CAST('2023-01-08' AS DATETIME)
GROUP BY
  `PaymentsModel__paidAt__hour`
ORDER BY
  `PaymentsModel__paidAt__hour` ASC NULLS LAST
