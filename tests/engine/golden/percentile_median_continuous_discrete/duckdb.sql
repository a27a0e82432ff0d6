SELECT
  "payments".method AS "PaymentsModel__method",
  QUANTILE_CONT(CAST("payments".amount AS DOUBLE), 0.5) AS "PaymentsModel__medianPayment",
  QUANTILE_CONT(CAST("payments".amount AS DOUBLE), 0.9) AS "PaymentsModel__p90Payment",
  QUANTILE_DISC("payments".amount, 0.9) AS "PaymentsModel__p90PaymentDiscrete"
FROM payments AS "payments"
GROUP BY
  "payments".method
ORDER BY
  "PaymentsModel__method" ASC
