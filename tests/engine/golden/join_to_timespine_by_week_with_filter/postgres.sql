WITH "result" AS (
  SELECT
    CAST(DATE_TRUNC('week', "orders".order_date) AS DATE) AS "OrdersModel__orderDate__week",
    COUNT("orders".order_id) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'store' AND TRIM("orders".status) = 'returned'
  GROUP BY
    CAST(DATE_TRUNC('week', "orders".order_date) AS DATE)
), "periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('week', "spine"."date_day") AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    CAST(DATE_TRUNC('week', "spine"."date_day") AS DATE) >= (
      SELECT
        MIN("OrdersModel__orderDate__week")
      FROM "result"
    )
    AND CAST(DATE_TRUNC('week', "spine"."date_day") AS DATE) <= (
      SELECT
        MAX("OrdersModel__orderDate__week")
      FROM "result"
    )
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__week",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__week" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__week" ASC
