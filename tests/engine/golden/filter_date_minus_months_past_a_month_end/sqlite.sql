SELECT
  DATE("orders".order_date) AS "OrdersModel__orderDate__day",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date >= CASE
    WHEN STRFTIME('%d', DATE(DATE('2023-05-31'), '-3 months')) <> STRFTIME('%d', DATE('2023-05-31'))
    THEN DATE(DATE(DATE('2023-05-31'), '-3 months'), 'start of month', '-1 days')
    ELSE DATE(DATE('2023-05-31'), '-3 months')
  END
  AND "orders".order_date < '2023-03-06'
GROUP BY
  DATE("orders".order_date)
ORDER BY
  "OrdersModel__orderDate__day" ASC NULLS LAST
