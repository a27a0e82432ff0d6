SELECT
  "payments".method AS "PaymentsModel__method",
  APPROX_PERCENTILE(CAST("payments".amount AS DOUBLE), 0.5) AS "PaymentsModel__medianPayment",
  APPROX_PERCENTILE(CAST("payments".amount AS DOUBLE), 0.9) AS "PaymentsModel__p90Payment",
  APPROX_PERCENTILE("payments".amount, 0.9) AS "PaymentsModel__p90PaymentDiscrete"
FROM payments AS "payments"
GROUP BY
  "payments".method
ORDER BY
  "PaymentsModel__method" ASC
