WITH "result" AS (
  SELECT
    DATE("orders".order_date, 'weekday 0', '-6 days') AS "OrdersModel__orderDate__week",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'store'
    AND TRIM("orders".status) = 'returned'
    AND "orders".order_date BETWEEN '2024-01-03' AND '2024-06-30'
  GROUP BY
    DATE("orders".order_date, 'weekday 0', '-6 days')
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'weekday 0', '-6 days') AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2024-01-03' AND '2024-06-30'
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__week",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__week" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__week" ASC NULLS LAST
