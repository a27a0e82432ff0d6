WITH "result" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "metric_time__day",
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE) AS "metric_time__month",
    CAST(EXTRACT(DOW FROM "orders".order_date) AS INTEGER) AS "metric_time__extract_dow",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-02-03' AS DATE)
    AND "orders".order_date < CAST('2024-02-12' AS DATE)
  GROUP BY
    CAST("orders".order_date AS DATE),
    CAST(DATE_TRUNC('month', "orders".order_date) AS DATE),
    CAST(EXTRACT(DOW FROM "orders".order_date) AS INTEGER)
), "periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period",
    CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) AS "period1",
    CAST(EXTRACT(DOW FROM "spine"."date_day") AS INTEGER) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-02-03' AS DATE)
    AND "spine"."date_day" < CAST('2024-02-12' AS DATE)
)
SELECT
  "p"."period" AS "metric_time__day",
  "p"."period1" AS "metric_time__month",
  "p"."period2" AS "metric_time__extract_dow",
  COALESCE("r"."ordersPlacedFilled", 0) AS "ordersPlacedFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
  AND "r"."metric_time__month" = "p"."period1"
  AND "r"."metric_time__extract_dow" = "p"."period2"
ORDER BY
  "metric_time__day" ASC,
  "metric_time__month" ASC,
  "metric_time__extract_dow" ASC
