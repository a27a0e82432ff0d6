WITH "f0" AS (
  SELECT
    DATE("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-02-01' AND '2024-02-29'
    AND "orders".channel = 'web'
  GROUP BY
    DATE("orders".order_date)
), "f1" AS (
  SELECT
    DATE("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-02-01' AND '2024-02-29'
  GROUP BY
    DATE("orders".order_date)
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
    "m"."g0" AS "metric_time__day",
    CAST(COALESCE("m"."a0", 0) AS REAL) / NULLIF(COALESCE("m"."a1", 0), 0) AS "webShareFilled",
    (
      CAST(COALESCE("m"."a0", 0) AS REAL) / NULLIF(COALESCE("m"."a1", 0), 0)
    ) >= 0.5 AS "_having0"
  FROM "merged" AS "m"
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" BETWEEN '2024-02-01' AND '2024-02-29'
)
SELECT
  "p"."period" AS "metric_time__day",
  CASE
    WHEN "r"."metric_time__day" IS NULL
    THEN CAST(COALESCE(NULL, 0) AS REAL) / NULLIF(COALESCE(NULL, 0), 0)
    ELSE "r"."webShareFilled"
  END AS "webShareFilled"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
WHERE
  CASE
    WHEN "r"."metric_time__day" IS NULL
    THEN (
      CAST(COALESCE(NULL, 0) AS REAL) / NULLIF(COALESCE(NULL, 0), 0)
    ) >= 0.5
    ELSE "r"."_having0"
  END
ORDER BY
  "metric_time__day" ASC NULLS LAST
