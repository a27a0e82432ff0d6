SELECT
  toStartOfYear("orders".order_date) AS "OrdersModel__orderDate__year",
  CAST(COUNT(
    CASE
      WHEN "orders".channel = 'web' AND TRIM("orders".status) = 'shipped'
      THEN "orders".order_id
    END
  ) AS Nullable(Float64)) / nullIf(COUNT(CASE WHEN "orders".channel = 'web' THEN "orders".order_id END), 0) AS "webShippedShare"
FROM orders AS "orders"
GROUP BY
  toStartOfYear("orders".order_date)
ORDER BY
  "OrdersModel__orderDate__year" ASC
SETTINGS join_use_nulls = 1
