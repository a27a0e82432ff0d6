SELECT
  DATE("orders".order_date, 'weekday 0', '-6 days') AS "OrdersModel__orderDate__week",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date <= '2023-02-28'
GROUP BY
  DATE("orders".order_date, 'weekday 0', '-6 days')
ORDER BY
  "OrdersModel__orderDate__week" ASC NULLS LAST
