WITH "result" AS (
  SELECT
    CAST(DATE_TRUNC('quarter', "orders".order_date) AS DATE) AS "OrdersModel__orderDate__quarter",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-01-01' AS DATE) AND CAST('2025-06-30' AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('quarter', "orders".order_date) AS DATE)
), "periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('quarter', "spine"."date_day") AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-01-01' AS DATE) AND CAST('2025-06-30' AS DATE)
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__quarter",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__quarter" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__quarter" ASC
