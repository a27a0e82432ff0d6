WITH "result" AS (
  SELECT
    DATE("orders".order_date, 'start of month') AS "OrdersModel__orderDate__month",
    DATE("orders".order_date) AS "OrdersModel__orderDate__day",
    CAST(STRFTIME('%Y', "orders".order_date) AS INTEGER) AS "OrdersModel__orderDate__extract_year",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-01-25' AND '2024-02-15'
  GROUP BY
    DATE("orders".order_date, 'start of month'),
    DATE("orders".order_date),
    CAST(STRFTIME('%Y', "orders".order_date) AS INTEGER)
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period",
    DATE("spine"."date_day") AS "period1",
    CAST(STRFTIME('%Y', "spine"."date_day") AS INTEGER) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2024-01-25' AND '2024-02-15'
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
  "OrdersModel__orderDate__month" ASC NULLS LAST,
  "OrdersModel__orderDate__day" ASC NULLS LAST,
  "OrdersModel__orderDate__extract_year" ASC NULLS LAST
