SELECT
  DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY) AS `PaymentsModel__paidAt__month`,
  `payments`.method AS `PaymentsModel__method`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
GROUP BY
  DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY),
  `payments`.method
ORDER BY
  CASE WHEN DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY) IS NULL THEN 1 ELSE 0 END, DATE_SUB(DATE(`payments`.paid_at), INTERVAL (DAYOFMONTH(`payments`.paid_at) - 1) DAY) ASC,
  CASE WHEN `payments`.method IS NULL THEN 1 ELSE 0 END, `payments`.method ASC
