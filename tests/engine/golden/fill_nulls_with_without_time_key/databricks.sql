SELECT
  `payments`.method AS `PaymentsModel__method`,
  COALESCE(SUM(CASE WHEN `payments`.method = 'card' THEN `payments`.amount END), 0) AS `cardPaymentsOrZero`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
GROUP BY
  `payments`.method
ORDER BY
  `PaymentsModel__method` ASC NULLS LAST
