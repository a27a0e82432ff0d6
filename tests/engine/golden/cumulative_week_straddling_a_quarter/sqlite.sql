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
    "spine"."date_day" >= DATE((
      SELECT
        MIN("t")
      FROM "f0_rows"
    ), 'weekday 0', '-6 days')
    AND "spine"."date_day" < DATE(
      DATE((
        SELECT
          MAX("t")
        FROM "f0_rows"
      ), 'weekday 0', '-6 days'),
      '+7 days'
    )
    AND "spine"."date_day" BETWEEN '2024-09-23' AND '2024-10-13'
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0_daily" AS (
  SELECT
    "p"."period" AS "day",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < DATE("p"."period", '+1 days')
    AND "r"."t" >= DATE(DATE("p"."period", '+1 days'), '-7 days')
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."g1",
    "ranked"."a0"
  FROM (
    SELECT
      DATE("d"."day", 'weekday 0', '-6 days') AS "g0",
      DATE(
        "d"."day",
        'start of month',
        '-' || (
          (
            CAST(STRFTIME('%m', "d"."day") AS INTEGER) - 1
          ) % 3
        ) || ' months'
      ) AS "g1",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (
        PARTITION BY DATE("d"."day", 'weekday 0', '-6 days'), DATE(
          "d"."day",
          'start of month',
          '-' || (
            (
              CAST(STRFTIME('%m', "d"."day") AS INTEGER) - 1
            ) % 3
          ) || ' months'
        )
        ORDER BY "d"."day" DESC
      ) AS "__rank"
    FROM "f0_daily" AS "d"
  ) AS "ranked"
  WHERE
    "ranked"."__rank" = 1
), "f1" AS (
  SELECT
    DATE("orders".order_date, 'weekday 0', '-6 days') AS "g0",
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    ) AS "g1",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN '2024-09-23' AND '2024-10-13'
  GROUP BY
    DATE("orders".order_date, 'weekday 0', '-6 days'),
    DATE(
      "orders".order_date,
      'start of month',
      '-' || (
        (
          CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) - 1
        ) % 3
      ) || ' months'
    )
), "merged" AS (
  SELECT
    "g0",
    "g1",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1"
  FROM (
    SELECT
      "g0",
      "g1",
      "a0",
      NULL AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      "g1",
      NULL AS "a0",
      "a1"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0",
    "g1"
)
SELECT
  "m"."g0" AS "metric_time__week",
  "m"."g1" AS "metric_time__quarter",
  "m"."a0" AS "ordersLast7DaysCount",
  "m"."a1" AS "OrdersModel__orderCount"
FROM "merged" AS "m"
ORDER BY
  "metric_time__week" ASC NULLS LAST,
  "metric_time__quarter" ASC NULLS LAST
