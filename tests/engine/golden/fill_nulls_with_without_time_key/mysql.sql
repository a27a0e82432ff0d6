SELECT
  `result`.`PaymentsModel__method` AS `PaymentsModel__method`,
  COALESCE(`result`.`cardPaymentsOrZero`, 0) AS `cardPaymentsOrZero`,
  `result`.`PaymentsModel__paymentCount` AS `PaymentsModel__paymentCount`
FROM (
  SELECT
    `payments`.method AS `PaymentsModel__method`,
    SUM(CASE WHEN `payments`.method = 'card' THEN `payments`.amount END) AS `cardPaymentsOrZero`,
    COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
  FROM payments AS `payments`
  GROUP BY
    `payments`.method
) AS `result`
ORDER BY
  CASE WHEN `result`.`PaymentsModel__method` IS NULL THEN 1 ELSE 0 END, `result`.`PaymentsModel__method` ASC
