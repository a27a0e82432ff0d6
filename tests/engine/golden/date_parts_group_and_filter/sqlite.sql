SELECT
  (
    (
      CAST(STRFTIME('%w', "orders".order_date) AS INTEGER) + 6
    ) % 7
  ) + 1 AS "OrdersModel__orderDate__extract_dow",
  (
    CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) + 2
  ) / 3 AS "OrdersModel__orderDate__extract_quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  CAST(STRFTIME('%Y', "orders".order_date) AS INTEGER) = 2024
  AND CAST(STRFTIME('%j', "orders".order_date) AS INTEGER) <= 100
GROUP BY
  (
    (
      CAST(STRFTIME('%w', "orders".order_date) AS INTEGER) + 6
    ) % 7
  ) + 1,
  (
    CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) + 2
  ) / 3
ORDER BY
  "OrdersModel__orderDate__extract_dow" ASC NULLS LAST,
  "OrdersModel__orderDate__extract_quarter" ASC NULLS LAST
