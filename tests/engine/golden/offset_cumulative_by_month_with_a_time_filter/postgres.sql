WITH "f0_shifted_periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= CAST('2024-03-01' AS DATE)
    AND "spine"."date_day" <= CAST('2024-05-31' AS DATE)
), "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) AS "period"
  FROM time_spine AS "spine"
  WHERE
    "spine"."date_day" >= (
      SELECT
        MIN("t")
      FROM "f0_rows"
    )
    AND "spine"."date_day" <= (
      SELECT
        MAX("t")
      FROM "f0_rows"
    )
    AND CAST(DATE_TRUNC('month', "spine"."date_day") AS DATE) IN (
      SELECT
        CAST("p"."period" + INTERVAL '-1 month' AS DATE)
      FROM "f0_shifted_periods" AS "p"
    )
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0_unshifted" AS (
  SELECT
    "p"."period" AS "g0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < CAST("p"."period" + INTERVAL '1 month' AS DATE)
    AND "r"."t" >= CAST(DATE_TRUNC(
      'month',
      CAST(CAST("p"."period" + INTERVAL '1 month' AS DATE) + INTERVAL '-1 day' AS DATE)
    ) AS DATE)
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    "c"."a0" AS "a0"
  FROM "f0_shifted_periods" AS "p"
  INNER JOIN "f0_unshifted" AS "c"
    ON "c"."g0" = CAST("p"."period" + INTERVAL '-1 month' AS DATE)
)
SELECT
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "ordersMtdMonthAgo"
FROM "f0" AS "m"
ORDER BY
  "metric_time__month" ASC
