SELECT
  TIMESTAMP_TRUNC(`payments`.paid_at, SECOND) AS `PaymentsModel__paidAt__second`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
WHERE
  TIMESTAMP_TRUNC(`payments`.paid_at, HOUR) = CAST('2023-01-01 09:00:00' AS DATETIME)
GROUP BY
  `PaymentsModel__paidAt__second`
ORDER BY
  `PaymentsModel__paidAt__second` ASC NULLS LAST
