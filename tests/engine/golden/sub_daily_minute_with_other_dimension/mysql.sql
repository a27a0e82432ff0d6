SELECT
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:00') AS DATETIME) AS `PaymentsModel__paidAt__minute`,
  `payments`.method AS `PaymentsModel__method`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
WHERE
  DATE(`payments`.paid_at) = '2024-03-01'
GROUP BY
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:00') AS DATETIME),
  `payments`.method
ORDER BY
  CASE WHEN CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:00') AS DATETIME) IS NULL THEN 1 ELSE 0 END, CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:00') AS DATETIME) ASC,
  CASE WHEN `payments`.method IS NULL THEN 1 ELSE 0 END, `payments`.method ASC
