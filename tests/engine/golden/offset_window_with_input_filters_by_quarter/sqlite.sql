WITH "f0" AS (
  SELECT
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web'
  GROUP BY
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    )
), "f1_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day") AS "period",
    CASE
      WHEN STRFTIME('%d', DATE(DATE("spine"."date_day"), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day"))
      THEN DATE(DATE(DATE("spine"."date_day"), '-12 months'), 'start of month', '-1 days')
      ELSE DATE(DATE("spine"."date_day"), '-12 months')
    END AS "read"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    DATE(
      "p"."period",
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "p"."period") AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date)
  WHERE
    "orders".channel = 'web'
  GROUP BY
    DATE(
      "p"."period",
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "p"."period") AS INTEGER) - 1
        ) % 3
      ) || ' months'
    )
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
  "m"."g0" AS "metric_time__quarter",
  "m"."a0" - "m"."a1" AS "webOrdersGrowthYoY"
FROM "merged" AS "m"
ORDER BY
  "metric_time__quarter" ASC NULLS LAST
