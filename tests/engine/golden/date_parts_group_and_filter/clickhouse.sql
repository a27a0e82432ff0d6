SELECT
  CAST(EXTRACT(ISODOW FROM "orders".order_date) AS Nullable(Int32)) AS "OrdersModel__orderDate__extract_dow",
  CAST(EXTRACT(QUARTER FROM "orders".order_date) AS Nullable(Int32)) AS "OrdersModel__orderDate__extract_quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  CAST(EXTRACT(YEAR FROM "orders".order_date) AS Nullable(Int32)) = 2024
  AND CAST(EXTRACT(DOY FROM "orders".order_date) AS Nullable(Int32)) <= 100
GROUP BY
  CAST(EXTRACT(ISODOW FROM "orders".order_date) AS Nullable(Int32)),
  CAST(EXTRACT(QUARTER FROM "orders".order_date) AS Nullable(Int32))
ORDER BY
  "OrdersModel__orderDate__extract_dow" ASC,
  "OrdersModel__orderDate__extract_quarter" ASC
SETTINGS join_use_nulls = 1
