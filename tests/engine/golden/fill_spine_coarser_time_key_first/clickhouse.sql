WITH "result" AS (
  SELECT
    toStartOfMonth("orders".order_date) AS "OrdersModel__orderDate__month",
    toDate("orders".order_date) AS "OrdersModel__orderDate__day",
    CAST(EXTRACT(YEAR FROM "orders".order_date) AS Nullable(Int32)) AS "OrdersModel__orderDate__extract_year",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-01-25' AS Nullable(DATE)) AND CAST('2024-02-15' AS Nullable(DATE))
  GROUP BY
    toStartOfMonth("orders".order_date),
    toDate("orders".order_date),
    CAST(EXTRACT(YEAR FROM "orders".order_date) AS Nullable(Int32))
), "periods" AS (
  SELECT DISTINCT
    toStartOfMonth("spine"."date_day") AS "period",
    toDate("spine"."date_day") AS "period1",
    CAST(EXTRACT(YEAR FROM "spine"."date_day") AS Nullable(Int32)) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-01-25' AS Nullable(DATE)) AND CAST('2024-02-15' AS Nullable(DATE))
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__month",
  "p"."period1" AS "OrdersModel__orderDate__day",
  "p"."period2" AS "OrdersModel__orderDate__extract_year",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__month" = "p"."period"
  AND "r"."OrdersModel__orderDate__day" = "p"."period1"
  AND "r"."OrdersModel__orderDate__extract_year" = "p"."period2"
ORDER BY
  "OrdersModel__orderDate__month" ASC,
  "OrdersModel__orderDate__day" ASC,
  "OrdersModel__orderDate__extract_year" ASC
SETTINGS join_use_nulls = 1
