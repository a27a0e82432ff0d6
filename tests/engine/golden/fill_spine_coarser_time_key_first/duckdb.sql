WITH "result" AS (
  SELECT
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE) AS "OrdersModel__orderDate__month",
    CAST("orders".order_date AS DATE) AS "OrdersModel__orderDate__day",
    CAST(EXTRACT(YEAR FROM "orders".order_date) AS INT) AS "OrdersModel__orderDate__extract_year",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-01-25' AS DATE) AND CAST('2024-02-15' AS DATE)
  GROUP BY
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE),
    CAST("orders".order_date AS DATE),
    CAST(EXTRACT(YEAR FROM "orders".order_date) AS INT)
), "periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) AS "period",
    CAST("spine"."date_day" AS DATE) AS "period1",
    CAST(EXTRACT(YEAR FROM "spine"."date_day") AS INT) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-01-25' AS DATE) AND CAST('2024-02-15' AS DATE)
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
