SELECT
  toDate("orders".order_date) AS "OrdersModel__orderDate__day",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date >= addMonths(CAST('2023-05-31' AS Nullable(DATE)), -3)
  AND "orders".order_date < CAST('2023-03-06' AS Nullable(DATE))
GROUP BY
  toDate("orders".order_date)
ORDER BY
  "OrdersModel__orderDate__day" ASC
SETTINGS join_use_nulls = 1
