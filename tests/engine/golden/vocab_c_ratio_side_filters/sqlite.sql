SELECT
  DATE("orders".order_date, 'start of year') AS "OrdersModel__orderDate__year",
  CAST(COUNT(
    CASE
      WHEN "orders".channel = 'web' AND TRIM("orders".status) = 'shipped'
      THEN "orders".order_id
    END
  ) AS REAL) / NULLIF(COUNT(CASE WHEN "orders".channel = 'web' THEN "orders".order_id END), 0) AS "webShippedShare"
FROM orders AS "orders"
GROUP BY
  DATE("orders".order_date, 'start of year')
ORDER BY
  "OrdersModel__orderDate__year" ASC NULLS LAST
