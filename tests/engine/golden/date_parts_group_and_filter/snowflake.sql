SELECT
  DAYOFWEEKISO("orders".order_date) AS "OrdersModel__orderDate__extract_dow",
  CAST(DATE_PART(QUARTER, "orders".order_date) AS INT) AS "OrdersModel__orderDate__extract_quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  CAST(DATE_PART(YEAR, "orders".order_date) AS INT) = 2024
  AND DAYOFYEAR("orders".order_date) <= 100
GROUP BY
  DAYOFWEEKISO("orders".order_date),
  CAST(DATE_PART(QUARTER, "orders".order_date) AS INT)
ORDER BY
  "OrdersModel__orderDate__extract_dow" ASC,
  "OrdersModel__orderDate__extract_quarter" ASC
