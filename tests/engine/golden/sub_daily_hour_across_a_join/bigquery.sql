SELECT
  TIMESTAMP_TRUNC(`payments`.paid_at, HOUR) AS `PaymentsModel__paidAt__hour`,
  `orders`.channel AS `OrdersModel__channel`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
LEFT JOIN orders AS `orders`
  ON `payments`.order_id = `orders`.order_id
WHERE
  `payments`.paid_at BETWEEN CAST('2024-06-01' AS DATETIME) AND CAST('2024-06-03' AS DATETIME)
GROUP BY
  `PaymentsModel__paidAt__hour`,
  `OrdersModel__channel`
ORDER BY
  `PaymentsModel__paidAt__hour` ASC NULLS LAST,
  `OrdersModel__channel` ASC NULLS LAST
