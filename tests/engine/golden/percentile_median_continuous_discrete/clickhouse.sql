SELECT
  "payments".method AS "PaymentsModel__method",
  quantileExactInclusive(0.5)(CAST("payments".amount AS Nullable(Float64))) AS "PaymentsModel__medianPayment",
  quantileExactInclusive(0.9)(CAST("payments".amount AS Nullable(Float64))) AS "PaymentsModel__p90Payment",
  CASE
    WHEN COUNT("payments".amount) = 0
    THEN NULL
    ELSE arrayElement(
      arraySort(groupArray("payments".amount)),
      toUInt64(greatest(ceil(COUNT("payments".amount) * 0.9), 1))
    )
  END AS "PaymentsModel__p90PaymentDiscrete"
FROM payments AS "payments"
GROUP BY
  "payments".method
ORDER BY
  "PaymentsModel__method" ASC
SETTINGS join_use_nulls = 1
