WITH "result" AS (
  SELECT
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "OrdersModel__orderDate__quarter",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-01-01' AND '2025-06-30'
  GROUP BY
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    )
), "periods" AS (
  SELECT DISTINCT
    DATE(
      "spine"."date_day",
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "spine"."date_day") AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2024-01-01' AND '2025-06-30'
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__quarter",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__quarter" = "p"."period"
ORDER BY
  "OrdersModel__orderDate__quarter" ASC NULLS LAST
