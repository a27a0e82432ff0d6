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
    "spine"."date_day" >= CAST(DATEADD(
      DAY,
      -(
        DAYOFWEEKISO(CAST((
          SELECT
            MIN("t")
          FROM "f0_rows"
        ) AS DATE)) - 1
      ),
      CAST((
        SELECT
          MIN("t")
        FROM "f0_rows"
      ) AS DATE)
    ) AS DATE)
    AND "spine"."date_day" < CAST(DATEADD(
      DAY,
      7,
      CAST(DATEADD(
        DAY,
        -(
          DAYOFWEEKISO(CAST((
            SELECT
              MAX("t")
            FROM "f0_rows"
          ) AS DATE)) - 1
        ),
        CAST((
          SELECT
            MAX("t")
          FROM "f0_rows"
        ) AS DATE)
      ) AS DATE)
    ) AS DATE)
    AND "spine"."date_day" BETWEEN CAST('2024-01-22' AS DATE) AND CAST('2024-02-25' AS DATE)
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
    ON "r"."t" < CAST(DATEADD(DAY, 1, "p"."period") AS DATE)
    AND "r"."t" >= CAST(DATEADD(DAY, -30, CAST(DATEADD(DAY, 1, "p"."period") AS DATE)) AS DATE)
  GROUP BY
    "p"."period"
), "f0" AS (
  SELECT
    CAST(DATEADD(DAY, -(
      DAYOFWEEKISO(CAST("d"."day" AS DATE)) - 1
    ), CAST("d"."day" AS DATE)) AS DATE) AS "g0",
    CAST(DATE_PART(MONTH, "d"."day") AS INT) AS "g1",
    AVG(CAST("d"."a0" AS DOUBLE)) AS "a0"
  FROM "f0_daily" AS "d"
  GROUP BY
    CAST(DATEADD(DAY, -(
      DAYOFWEEKISO(CAST("d"."day" AS DATE)) - 1
    ), CAST("d"."day" AS DATE)) AS DATE),
    CAST(DATE_PART(MONTH, "d"."day") AS INT)
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__week",
  "m"."g1" AS "OrdersModel__orderDate__extract_month",
  "m"."a0" AS "ordersLast30DaysAverage"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__week" ASC,
  "OrdersModel__orderDate__extract_month" ASC
