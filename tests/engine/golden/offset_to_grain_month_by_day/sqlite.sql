WITH "f0" AS (
  SELECT
    DATE("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-03-01' AND '2024-04-10'
  GROUP BY
    DATE("orders".order_date)
), "f1_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE("spine"."date_day"), 'start of month') AS "read"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
  WHERE
    "p"."period" BETWEEN '2024-03-01' AND '2024-04-10'
    AND "orders".order_date BETWEEN '2024-03-01' AND '2024-04-10'
  GROUP BY
    "p"."period"
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "metric_time__day",
  "m"."a0" - "m"."a1" AS "ordersSinceStartOfMonth",
  "m"."a0" AS "OrdersModel__ordersPlaced"
FROM "merged" AS "m"
ORDER BY
  "metric_time__day" ASC NULLS LAST
