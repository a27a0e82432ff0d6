SELECT
  CAST("orders".order_date AS DATE) AS "OrdersModel__orderDate__day",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date >= CAST(DATEADD(MONTH, -3, CAST('2023-05-31' AS DATE)) AS DATE)
  AND "orders".order_date < CAST('2023-03-06' AS DATE)
GROUP BY
  CAST("orders".order_date AS DATE)
ORDER BY
  "OrdersModel__orderDate__day" ASC
