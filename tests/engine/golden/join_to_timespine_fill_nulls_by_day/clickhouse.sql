WITH "result" AS (
  SELECT
    toDate("orders".order_date) AS "OrdersModel__orderDate__day",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled",
    COUNT("orders".order_id) AS "orderCountOnSpine"
  FROM orders AS "orders"
  GROUP BY
    toDate("orders".order_date)
), "periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__day",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled",
  "r"."orderCountOnSpine" AS "orderCountOnSpine"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__day" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__day" ASC
SETTINGS join_use_nulls = 1
