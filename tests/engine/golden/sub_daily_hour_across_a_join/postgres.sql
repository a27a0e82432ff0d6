SELECT
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP) AS "PaymentsModel__paidAt__hour",
  "orders".channel AS "OrdersModel__channel",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
LEFT JOIN orders AS "orders"
  ON "payments".order_id = "orders".order_id
WHERE
  "payments".paid_at BETWEEN CAST('2024-06-01' AS TIMESTAMP) AND CAST('2024-06-03' AS TIMESTAMP)
GROUP BY
  CAST(DATE_TRUNC('hour', "payments".paid_at) AS TIMESTAMP),
  "orders".channel
ORDER BY
  "PaymentsModel__paidAt__hour" ASC,
  "OrdersModel__channel" ASC
