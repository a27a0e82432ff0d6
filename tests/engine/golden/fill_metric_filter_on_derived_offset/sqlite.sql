WITH "f0" AS (
  SELECT
    DATE("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    DATE("orders".order_date)
), "f1_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    DATE(DATE("spine"."date_day"), '-14 days') AS "read"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
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
), "result" AS (
  SELECT
    "m"."g0" AS "metric_time__day",
    COALESCE("m"."a0", 0) - COALESCE("m"."a1", 0) AS "filledGrowth2Weeks",
    (
      COALESCE("m"."a0", 0) - COALESCE("m"."a1", 0)
    ) <= -8 AS "_having0"
  FROM "merged" AS "m"
), "periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period"
  FROM time_spine AS "spine"
)
SELECT
  "p"."period" AS "metric_time__day",
  CASE
    WHEN "r"."metric_time__day" IS NULL
    THEN COALESCE(NULL, 0) - COALESCE(NULL, 0)
    ELSE "r"."filledGrowth2Weeks"
  END AS "filledGrowth2Weeks"
FROM "periods" AS "p"
LEFT JOIN "result" AS "r"
  ON "r"."metric_time__day" = "p"."period"
WHERE
  CASE
    WHEN "r"."metric_time__day" IS NULL
    THEN (
      COALESCE(NULL, 0) - COALESCE(NULL, 0)
    ) <= -8
    ELSE "r"."_having0"
  END
ORDER BY
  "metric_time__day" ASC NULLS LAST
