SELECT
  toDateTime64(toStartOfHour("payments".paid_at), 6) AS "PaymentsModel__paidAt__hour",
  "orders".channel AS "OrdersModel__channel",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
LEFT JOIN orders AS "orders"
  ON "payments".order_id = "orders".order_id
WHERE
  "payments".paid_at BETWEEN CAST('2024-06-01' AS Nullable(DateTime)) AND CAST('2024-06-03' AS Nullable(DateTime))
GROUP BY
  toDateTime64(toStartOfHour("payments".paid_at), 6),
  "orders".channel
ORDER BY
  "PaymentsModel__paidAt__hour" ASC,
  "OrdersModel__channel" ASC
SETTINGS join_use_nulls = 1
