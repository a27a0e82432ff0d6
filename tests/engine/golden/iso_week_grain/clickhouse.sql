SELECT
  toMonday("orders".order_date) AS "OrdersModel__orderDate__week",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date <= CAST('2023-02-28' AS Nullable(DATE))
GROUP BY
  toMonday("orders".order_date)
ORDER BY
  "OrdersModel__orderDate__week" ASC
SETTINGS join_use_nulls = 1
