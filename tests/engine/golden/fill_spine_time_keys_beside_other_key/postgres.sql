WITH "result" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "metric_time__day",
    "orders".channel AS "OrdersModel__channel",
    CAST(DATE_TRUNC('week', "orders".order_date) AS DATE) AS "metric_time__week",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-02-03' AS DATE)
    AND "orders".order_date < CAST('2024-02-13' AS DATE)
  GROUP BY
    CAST("orders".order_date AS DATE),
    "orders".channel,
    CAST(DATE_TRUNC('week', "orders".order_date) AS DATE)
), "periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period",
    CAST(DATE_TRUNC('week', "spine"."date_day") AS DATE) AS "period2"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-02-03' AS DATE)
    AND "spine"."date_day" < CAST('2024-02-13' AS DATE)
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
  "metric_time__day" ASC,
  "OrdersModel__channel" ASC,
  "metric_time__week" ASC
