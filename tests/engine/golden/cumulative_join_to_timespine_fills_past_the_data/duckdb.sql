WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= CAST((
      SELECT
        MAX("t")
      FROM "f0_rows"
    ) + INTERVAL '8' DAY AS DATE)
    AND "spine"."date_day" BETWEEN CAST('2024-12-28' AS DATE) AND CAST('2025-01-12' AS DATE)
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
    ON "r"."t" < CAST("p"."period" + INTERVAL '1' DAY AS DATE)
    AND "r"."t" >= CAST(CAST("p"."period" + INTERVAL '1' DAY AS DATE) + INTERVAL '-7' DAY AS DATE)
  GROUP BY
    "p"."period"
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__day",
    COALESCE("m"."a0", 0) AS "ordersLast7DaysFilled"
  FROM "f0" AS "m"
), "periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN CAST('2024-12-28' AS DATE) AND CAST('2025-01-12' AS DATE)
)
SELECT
  "p"."period" AS "metric_time__day",
  COALESCE("r"."ordersLast7DaysFilled", 0) AS "ordersLast7DaysFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
ORDER BY
  "metric_time__day" ASC
