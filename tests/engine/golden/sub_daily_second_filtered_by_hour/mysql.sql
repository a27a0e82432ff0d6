SELECT
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:%s') AS DATETIME) AS `PaymentsModel__paidAt__second`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
WHERE
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) = '2023-01-01 09:00:00'
GROUP BY
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:%s') AS DATETIME)
ORDER BY
  CASE WHEN CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:%s') AS DATETIME) IS NULL THEN 1 ELSE 0 END, CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:%i:%s') AS DATETIME) ASC
