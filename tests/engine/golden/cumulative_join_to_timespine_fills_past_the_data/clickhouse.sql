WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS Nullable(DATE)) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= addDays((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ), 8)
    AND "spine"."date_day" BETWEEN CAST('2024-12-28' AS Nullable(DATE)) AND CAST('2025-01-12' AS Nullable(DATE))
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
    ON "r"."t" < addDays("p"."period", 1)
    AND "r"."t" >= addDays(addDays("p"."period", 1), -7)
  GROUP BY
    "p"."period"
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__day",
    COALESCE("m"."a0", 0) AS "ordersLast7DaysFilled"
  FROM "f0" AS "m"
), "periods" AS (
  SELECT DISTINCT
    toDate("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-12-28' AS Nullable(DATE)) AND CAST('2025-01-12' AS Nullable(DATE))
)
SELECT
  "p"."period" AS "metric_time__day",
  COALESCE("r"."ordersLast7DaysFilled", 0) AS "ordersLast7DaysFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
ORDER BY
  "metric_time__day" ASC
SETTINGS join_use_nulls = 1
