SELECT
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at) AS "PaymentsModel__paidAt__hour",
  "orders".channel AS "OrdersModel__channel",
  SUM("payments".amount) AS "PaymentsModel__amountPaid"
FROM payments AS "payments"
LEFT JOIN orders AS "orders"
  ON "payments".order_id = "orders".order_id
WHERE
  "payments".paid_at BETWEEN '2024-06-01' AND '2024-06-03'
GROUP BY
  STRFTIME('%Y-%m-%d %H:00:00', "payments".paid_at),
  "orders".channel
ORDER BY
  "PaymentsModel__paidAt__hour" ASC NULLS LAST,
  "OrdersModel__channel" ASC NULLS LAST
