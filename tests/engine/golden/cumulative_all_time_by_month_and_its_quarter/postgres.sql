WITH "f0_rows" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "t",
    "order_items".quantity * "order_items".unit_price * (
      1 - COALESCE("order_items".discount, 0)
    ) AS "i0"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
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
), "f0_days" AS (
  SELECT
    "t",
    SUM("i0") AS "i0"
  FROM "f0_rows"
  GROUP BY
    "t"
), "f0" AS (
  SELECT
    "p"."period" AS "g0",
    CAST(EXTRACT(QUARTER FROM "p"."period") AS INT) AS "g1",
    SUM("r"."i0") AS "a0"
  FROM "f0_periods" AS "p"
  LEFT JOIN "f0_days" AS "r"
    ON "r"."t" < CAST("p"."period" + INTERVAL '1 month' AS DATE)
  GROUP BY
    "p"."period",
    CAST(EXTRACT(QUARTER FROM "p"."period") AS INT)
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate__month",
  "m"."g1" AS "OrdersModel__orderDate__extract_quarter",
  "m"."a0" AS "cumulativeRevenue"
FROM "f0" AS "m"
ORDER BY
  "OrdersModel__orderDate__month" ASC,
  "OrdersModel__orderDate__extract_quarter" ASC
