WITH "result" AS (
  SELECT
    DATE("orders".order_date) AS "metric_time__day",
    "orders".channel AS "OrdersModel__channel",
    DATE("orders".order_date, 'weekday 0', '-6 days') AS "metric_time__week",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= '2024-02-03' AND "orders".order_date < '2024-02-13'
  GROUP BY
    DATE("orders".order_date),
    "orders".channel,
    DATE("orders".order_date, 'weekday 0', '-6 days')
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE("spine"."date_day", 'weekday 0', '-6 days') AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= '2024-02-03' AND "spine"."date_day" < '2024-02-13'
)
SELECT
  "p"."period" AS "metric_time__day",
  "r"."OrdersModel__channel" AS "OrdersModel__channel",
  "p"."period2" AS "metric_time__week",
  COALESCE("r"."ordersPlacedFilled", 0) AS "ordersPlacedFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period" AND "r"."metric_time__week" = "p"."period2"
ORDER BY
  "metric_time__day" ASC NULLS LAST,
  "OrdersModel__channel" ASC NULLS LAST,
  "metric_time__week" ASC NULLS LAST
