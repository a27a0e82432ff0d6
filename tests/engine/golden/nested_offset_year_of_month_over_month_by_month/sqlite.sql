WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period",
    CASE
      WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
      THEN DATE(
        DATE(DATE("spine"."date_day", 'start of month'), '-12 months'),
        'start of month',
        '-1 days'
      )
      ELSE DATE(DATE("spine"."date_day", 'start of month'), '-12 months')
    END AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  INNER JOIN "f0_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date, 'start of month')
  GROUP BY
    "p"."period"
), "f1_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of month') AS "period",
    CASE
      WHEN STRFTIME(
        '%d',
        DATE(
          CASE
            WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
            THEN DATE(
              DATE(DATE("spine"."date_day", 'start of month'), '-12 months'),
              'start of month',
              '-1 days'
            )
            ELSE DATE(DATE("spine"."date_day", 'start of month'), '-12 months')
          END,
          '-1 months'
        )
      ) <> STRFTIME(
        '%d',
        CASE
          WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
          THEN DATE(
            DATE(DATE("spine"."date_day", 'start of month'), '-12 months'),
            'start of month',
            '-1 days'
          )
          ELSE DATE(DATE("spine"."date_day", 'start of month'), '-12 months')
        END
      )
      THEN DATE(
        DATE(
          CASE
            WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
            THEN DATE(
              DATE(DATE("spine"."date_day", 'start of month'), '-12 months'),
              'start of month',
              '-1 days'
            )
            ELSE DATE(DATE("spine"."date_day", 'start of month'), '-12 months')
          END,
          '-1 months'
        ),
        'start of month',
        '-1 days'
      )
      ELSE DATE(
        CASE
          WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of month'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of month'))
          THEN DATE(
            DATE(DATE("spine"."date_day", 'start of month'), '-12 months'),
            'start of month',
            '-1 days'
          )
          ELSE DATE(DATE("spine"."date_day", 'start of month'), '-12 months')
        END,
        '-1 months'
      )
    END AS "read"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON "p"."read" = DATE("orders".order_date, 'start of month')
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
  "m"."g0" AS "metric_time__month",
  (
    "m"."a0" - "m"."a1"
  ) AS "ordersGrowthMoMYearAgo"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC NULLS LAST
