SELECT
  `payments`.method AS `PaymentsModel__method`,
  APPROX_QUANTILES(CAST(`payments`.amount AS FLOAT64), 2)[OFFSET(1)] AS `PaymentsModel__medianPayment`,
  APPROX_QUANTILES(CAST(`payments`.amount AS FLOAT64), 10)[OFFSET(9)] AS `PaymentsModel__p90Payment`,
  APPROX_QUANTILES(`payments`.amount, 10)[OFFSET(9)] AS `PaymentsModel__p90PaymentDiscrete`
FROM payments AS `payments`
GROUP BY
  `PaymentsModel__method`
ORDER BY
  `PaymentsModel__method` ASC NULLS LAST
