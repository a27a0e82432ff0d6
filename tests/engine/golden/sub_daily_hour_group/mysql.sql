SELECT
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) AS `PaymentsModel__paidAt__hour`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
WHERE
  `payments`.paid_at < '2023-01-08'
GROUP BY
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME)
ORDER BY
  CASE WHEN CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) IS NULL THEN 1 ELSE 0 END, CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) ASC
