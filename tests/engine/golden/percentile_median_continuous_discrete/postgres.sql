SELECT
  "payments".method AS "PaymentsModel__method",
  PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY
    CAST("payments".amount AS DOUBLE PRECISION)) AS "PaymentsModel__medianPayment",
  PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY
    CAST("payments".amount AS DOUBLE PRECISION)) AS "PaymentsModel__p90Payment",
  PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY
    "payments".amount) AS "PaymentsModel__p90PaymentDiscrete"
FROM payments AS "payments"
GROUP BY
  "payments".method
ORDER BY
  "PaymentsModel__method" ASC
