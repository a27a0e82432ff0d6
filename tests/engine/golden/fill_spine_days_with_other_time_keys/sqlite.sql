WITH "result" AS (
  SELECT
    DATE("orders".order_date) AS "metric_time__day",
    DATE("orders".order_date, 'start of month') AS "metric_time__month",
    (
      (
        CAST(STRFTIME('%w', "orders".order_date) AS INTEGER) + 6
      ) % 7
    ) + 1 AS "metric_time__extract_dow",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= '2024-02-03' AND "orders".order_date < '2024-02-12'
  GROUP BY
    DATE("orders".order_date),
    DATE("orders".order_date, 'start of month'),
    (
      (
        CAST(STRFTIME('%w', "orders".order_date) AS INTEGER) + 6
      ) % 7
    ) + 1
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE("spine"."date_day", 'start of month') AS "period1",
    (
      (
        CAST(STRFTIME('%w', "spine"."date_day") AS INTEGER) + 6
      ) % 7
    ) + 1 AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= '2024-02-03' AND "spine"."date_day" < '2024-02-12'
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
  "metric_time__day" ASC NULLS LAST,
  "metric_time__month" ASC NULLS LAST,
  "metric_time__extract_dow" ASC NULLS LAST
