SELECT
  TIMESTAMP_TRUNC(`payments`.paid_at, HOUR) AS `metric_time__hour`,
  COUNT(`payments`.payment_id) AS `PaymentsModel__paymentCount`
FROM payments AS `payments`
WHERE
  `payments`.paid_at >= CAST('2024-12-30' AS DATETIME)
GROUP BY
  `metric_time__hour`
ORDER BY
  `metric_time__hour` ASC NULLS LAST
