SELECT
  DATE("orders".order_date, 'start of year') AS "OrdersModel__orderDate__year",
  DATE(
    "orders".order_date,
    'start of month',
    '-' || (
      (
        CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
      ) % 3
    ) || ' months'
  ) AS "OrdersModel__orderDate__quarter",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
GROUP BY
  DATE("orders".order_date, 'start of year'),
  DATE(
    "orders".order_date,
    'start of month',
    '-' || (
      (
        CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
      ) % 3
    ) || ' months'
  )
ORDER BY
  "OrdersModel__orderDate__year" ASC NULLS LAST,
  "OrdersModel__orderDate__quarter" ASC NULLS LAST
