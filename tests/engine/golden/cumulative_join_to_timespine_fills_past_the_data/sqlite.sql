WITH "f0_rows" AS (
  SELECT
    DATE("orders".order_date) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= DATE((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ), '+8 days')
    AND "spine"."date_day" BETWEEN '2024-12-28' AND '2025-01-12'
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  INNER JOIN "f0_days" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE("p"."period", '+1 days'), '-7 days')
  GROUP BY
    "p"."period"
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__day",
    COALESCE("m"."a0", 0) AS "ordersLast7DaysFilled"
  FROM "f0" AS "m"
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2024-12-28' AND '2025-01-12'
)
SELECT
  "p"."period" AS "metric_time__day",
  COALESCE("r"."ordersLast7DaysFilled", 0) AS "ordersLast7DaysFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
ORDER BY
  "metric_time__day" ASC NULLS LAST
