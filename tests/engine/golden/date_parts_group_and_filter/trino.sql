SELECT
  CAST(EXTRACT(DOW FROM "orders".order_date) AS INTEGER) AS "OrdersModel__orderDate__extract_dow",
  CAST(EXTRACT(QUARTER FROM "orders".order_date) AS INTEGER) AS "OrdersModel__orderDate__extract_quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  CAST(EXTRACT(YEAR FROM "orders".order_date) AS INTEGER) = 2024
  AND CAST(EXTRACT(DOY FROM "orders".order_date) AS INTEGER) <= 100
GROUP BY
  CAST(EXTRACT(DOW FROM "orders".order_date) AS INTEGER),
  CAST(EXTRACT(QUARTER FROM "orders".order_date) AS INTEGER)
ORDER BY
  "OrdersModel__orderDate__extract_dow" ASC,
  "OrdersModel__orderDate__extract_quarter" ASC
