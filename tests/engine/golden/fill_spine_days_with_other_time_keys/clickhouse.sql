WITH "result" AS (
  SELECT
    toDate("orders".order_date) AS "metric_time__day",
    toStartOfMonth("orders".order_date) AS "metric_time__month",
    CAST(EXTRACT(ISODOW FROM "orders".order_date) AS Nullable(Int32)) AS "metric_time__extract_dow",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-02-03' AS Nullable(DATE))
    AND "orders".order_date < CAST('2024-02-12' AS Nullable(DATE))
  GROUP BY
    toDate("orders".order_date),
    toStartOfMonth("orders".order_date),
    CAST(EXTRACT(ISODOW FROM "orders".order_date) AS Nullable(Int32))
), "periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period",
    toStartOfMonth("spine"."date_day") AS "period1",
    CAST(EXTRACT(ISODOW FROM "spine"."date_day") AS Nullable(Int32)) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-02-03' AS Nullable(DATE))
    AND "spine"."date_day" < CAST('2024-02-12' AS Nullable(DATE))
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
SETTINGS join_use_nulls = 1
