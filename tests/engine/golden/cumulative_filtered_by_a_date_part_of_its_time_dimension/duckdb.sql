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
    AND CAST(EXTRACT(ISODOW FROM "spine"."date_day") AS INT) = 7
    AND "spine"."date_day" >= CAST('2024-03-01' AS DATE)
    AND "spine"."date_day" <= CAST('2024-03-31' AS DATE)
), "f0_days" AS (
  SELECT
    "t",
    COUNT("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    COALESCE(SUM("r"."i0"), 0) AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < CAST("p"."period" + INTERVAL '1' DAY AS DATE)
    AND "r"."t" >= CAST(CAST("p"."period" + INTERVAL '1' DAY AS DATE) + INTERVAL '-7' DAY AS DATE)
  GROUP BY
    "p"."period"
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__day",
  "m"."a0" AS "ordersLast7DaysCount"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__day" ASC
