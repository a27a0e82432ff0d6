WITH "result" AS (
  SELECT
    toStartOfQuarter("orders".order_date) AS "OrdersModel__orderDate__quarter",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-01-01' AS Nullable(DATE)) AND CAST('2025-06-30' AS Nullable(DATE))
  GROUP BY
    toStartOfQuarter("orders".order_date)
), "periods" AS (
  SELECT DISTINCT
    toStartOfQuarter("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-01-01' AS Nullable(DATE)) AND CAST('2025-06-30' AS Nullable(DATE))
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__quarter",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__quarter" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__quarter" ASC
SETTINGS join_use_nulls = 1
