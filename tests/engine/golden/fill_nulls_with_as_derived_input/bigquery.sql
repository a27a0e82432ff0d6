SELECT
  `payments`.method AS `PaymentsModel__method`,
  CAST(COALESCE(SUM(CASE WHEN `payments`.method = 'card' THEN `payments`.amount END), 0) AS FLOAT64) / NULLIF(SUM(`payments`.amount), 0) AS `cardShareOfPayments`
FROM payments AS `payments`
GROUP BY
  `PaymentsModel__method`
ORDER BY
  `PaymentsModel__method` ASC NULLS LAST
