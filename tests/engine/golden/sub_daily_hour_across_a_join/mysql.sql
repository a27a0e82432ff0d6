SELECT
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) AS `PaymentsModel__paidAt__hour`,
  `orders`.channel AS `OrdersModel__channel`,
  SUM(`payments`.amount) AS `PaymentsModel__amountPaid`
FROM payments AS `payments`
LEFT JOIN orders AS `orders`
  ON `payments`.order_id = `orders`.order_id
WHERE
  `payments`.paid_at BETWEEN '2024-06-01' AND '2024-06-03'
GROUP BY
  CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME),
  `orders`.channel
ORDER BY
  CASE WHEN CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) IS NULL THEN 1 ELSE 0 END, CAST(DATE_FORMAT(`payments`.paid_at, '%Y-%m-%d %H:00:00') AS DATETIME) ASC,
  CASE WHEN `orders`.channel IS NULL THEN 1 ELSE 0 END, `orders`.channel ASC
