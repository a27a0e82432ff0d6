WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "orders".order_id AS "i0"
  FROM orders AS "orders"
), "f0_periods" AS (
  SELECT DISTINCT
    CAST("spine"."date_day" AS DATE) AS "period",
    "spine"."fiscal_quarter" AS "c0"
  FROM time_spine AS "spine"
  WHERE
    "spine"."fiscal_quarter" >= (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST((
          SELECT
            MIN("t")
          FROM "f0_rows"
        ) AS DATE)
    )
    AND "spine"."fiscal_quarter" <= (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST((
          SELECT
            MAX("t")
          FROM "f0_rows"
        ) AS DATE)
    )
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
    "p"."c0" AS "c0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < CAST(DATEADD(DAY, 1, "p"."period") AS DATE)
    AND "r"."t" >= CAST(DATE_TRUNC(
      'year',
      CAST(DATEADD(DAY, -1, CAST(DATEADD(DAY, 1, "p"."period") AS DATE)) AS DATE)
    ) AS DATE)
  GROUP BY
    "p"."period",
    "p"."c0"
), "f0" AS (
  SELECT
    "ranked"."g0",
    "ranked"."a0"
  FROM (
    SELECT
      "d"."c0" AS "g0",
      "d"."a0" AS "a0",
      ROW_NUMBER() OVER (PARTITION BY "d"."c0" ORDER BY "d"."day" DESC NULLS LAST) AS "__rank"
    FROM "f0_daily" AS "d"
  ) AS "ranked"
  WHERE
    "ranked"."__rank" = 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__fiscal_quarter",
  "m"."a0" AS "ordersYearToDate"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__fiscal_quarter" ASC
