SELECT
  toStartOfYear("orders".order_date) AS "OrdersModel__orderDate__year",
  toStartOfQuarter("orders".order_date) AS "OrdersModel__orderDate__quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
GROUP BY
  toStartOfYear("orders".order_date),
  toStartOfQuarter("orders".order_date)
ORDER BY
  "OrdersModel__orderDate__year" ASC,
  "OrdersModel__orderDate__quarter" ASC
SETTINGS join_use_nulls = 1
