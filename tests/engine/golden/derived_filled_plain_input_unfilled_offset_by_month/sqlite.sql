WITH "f0" AS (
  SELECT
    DATE("orders".order_date, 'start of month') AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2022-06-01' AND '2023-06-30'
  GROUP BY
    DATE("orders".order_date, 'start of month')
), "f1_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE("spine"."date_day"), '-14 days') AS "read"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    DATE("p"."period", 'start of month') AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
  WHERE
    "p"."period" BETWEEN '2022-06-01' AND '2023-06-30'
    AND "orders".order_date BETWEEN '2022-06-01' AND '2023-06-30'
  GROUP BY
    DATE("p"."period", 'start of month')
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
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__month",
    COALESCE("m"."a0", 0) - "m"."a1" AS "filledGrowth2WeeksNonOffset"
  FROM "merged" AS "m"
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2022-06-01' AND '2023-06-30'
)
SELECT
  "p"."period" AS "metric_time__month",
  CASE
    WHEN "r"."metric_time__month" IS NULL
    THEN COALESCE(NULL, 0) - NULL
    ELSE "r"."filledGrowth2WeeksNonOffset"
  END AS "filledGrowth2WeeksNonOffset"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__month" = "p"."period"
ORDER BY
  "metric_time__month" ASC NULLS LAST
