WITH "result" AS (
  SELECT
    toDate("orders".order_date) AS "metric_time__day",
    COALESCE(COUNT("orders".order_id), 0) AS "ordersPlacedFilled",
    COALESCE(COUNT("orders".order_id), 0) < 3 AS "_having0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-02-01' AS Nullable(DATE))
    AND "orders".order_date < CAST('2024-03-01' AS Nullable(DATE))
  GROUP BY
    toDate("orders".order_date)
), "periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-02-01' AS Nullable(DATE))
    AND "spine"."date_day" < CAST('2024-03-01' AS Nullable(DATE))
)
SELECT
  "p"."period" AS "metric_time__day",
  COALESCE("r"."ordersPlacedFilled", 0) AS "ordersPlacedFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
WHERE
  CASE
    WHEN "r"."metric_time__day" IS NULL
    THEN COALESCE(NULL, 0) < 3
    ELSE "r"."_having0"
  END
ORDER BY
  "ordersPlacedFilled" ASC,
  "metric_time__day" DESC
LIMIT 9
SETTINGS join_use_nulls = 1
