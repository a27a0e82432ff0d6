SELECT
  CAST(DATE_TRUNC('month', `payments`.paid_at) AS DATE) AS `PaymentsModel__paidAt__month`,
  `payments`.method AS `PaymentsModel__method`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
GROUP BY
  CAST(DATE_TRUNC('month', `payments`.paid_at) AS DATE),
  `payments`.method
ORDER BY
  `PaymentsModel__paidAt__month` ASC NULLS LAST,
  `PaymentsModel__method` ASC NULLS LAST
