SELECT
  "payments".method AS "PaymentsModel__method",
  CAST(COALESCE(SUM(CASE WHEN "payments".method = 'card' THEN "payments".amount END), 0) AS Nullable(Float64)) / nullIf(SUM("payments".amount), 0) AS "cardShareOfPayments"
FROM payments AS "payments"
GROUP BY
  "payments".method
ORDER BY
  "PaymentsModel__method" ASC
SETTINGS join_use_nulls = 1
