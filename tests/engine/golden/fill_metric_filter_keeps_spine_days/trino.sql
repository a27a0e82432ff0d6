WITH "result" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "OrdersModel__orderDate__day",
    COALESCE(COUNT("orders".order_id), 0) AS "orderCountFilled",
    COALESCE(COUNT("orders".order_id), 0) < 2 AS "_having0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-02-01' AS DATE) AND CAST('2024-02-29' AS DATE)
  GROUP BY
    CAST("orders".order_date AS DATE)
), "periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-02-01' AS DATE) AND CAST('2024-02-29' AS DATE)
)
SELECT
  "p"."period" AS "OrdersModel__orderDate__day",
  COALESCE("r"."orderCountFilled", 0) AS "orderCountFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."OrdersModel__orderDate__day" = "p"."period"
WHERE
  CASE
    WHEN "r"."OrdersModel__orderDate__day" IS NULL
    THEN COALESCE(NULL, 0) < 2
    ELSE "r"."_having0"
  END
ORDER BY
  "OrdersModel__orderDate__day" ASC
