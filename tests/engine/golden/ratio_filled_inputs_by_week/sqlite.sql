WITH "f0" AS (
  SELECT
    DATE("orders".order_date, 'weekday 0', '-6 days') AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2022-12-01' AND '2023-02-28'
    AND "orders".channel = 'web'
  GROUP BY
    DATE("orders".order_date, 'weekday 0', '-6 days')
), "f1" AS (
  SELECT
    DATE("orders".order_date, 'weekday 0', '-6 days') AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2022-12-01' AND '2023-02-28'
  GROUP BY
    DATE("orders".order_date, 'weekday 0', '-6 days')
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
    "m"."g0" AS "metric_time__week",
    CAST(COALESCE("m"."a0", 0) AS REAL) / NULLIF(COALESCE("m"."a1", 0), 0) AS "webShareFilled"
  FROM "merged" AS "m"
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'weekday 0', '-6 days') AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2022-12-01' AND '2023-02-28'
)
SELECT
  "p"."period" AS "metric_time__week",
  CASE
    WHEN "r"."metric_time__week" IS NULL
    THEN CAST(COALESCE(NULL, 0) AS REAL) / NULLIF(COALESCE(NULL, 0), 0)
    ELSE "r"."webShareFilled"
  END AS "webShareFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__week" = "p"."period"
ORDER BY
  "metric_time__week" ASC NULLS LAST
