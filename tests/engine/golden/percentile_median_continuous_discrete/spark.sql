SELECT
  `payments`.method AS `PaymentsModel__method`,
  PERCENTILE(CAST(`payments`.amount AS DOUBLE), 0.5) AS `PaymentsModel__medianPayment`,
  PERCENTILE(CAST(`payments`.amount AS DOUBLE), 0.9) AS `PaymentsModel__p90Payment`,
  PERCENTILE_APPROX(`payments`.amount, 0.9) AS `PaymentsModel__p90PaymentDiscrete`
FROM payments AS `payments`
GROUP BY
  `payments`.method
ORDER BY
  `PaymentsModel__method` ASC NULLS LAST
