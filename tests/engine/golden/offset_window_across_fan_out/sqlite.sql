WITH "f0_periods" AS (
  SELECT DISTINCT
    DATE("spine"."date_day", 'start of year') AS "period",
    CASE
      WHEN STRFTIME('%d', DATE(DATE("spine"."date_day", 'start of year'), '-12 months')) <> STRFTIME('%d', DATE("spine"."date_day", 'start of year'))
      THEN DATE(
        DATE(DATE("spine"."date_day", 'start of year'), '-12 months'),
        'start of month',
        '-1 days'
      )
      ELSE DATE(DATE("spine"."date_day", 'start of year'), '-12 months')
    END AS "read"
  FROM time_spine AS "spine"
), "f0" AS (
  SELECT
    "dedup"."g0" AS "g0",
    "dedup"."g1" AS "g1",
    COUNT("dedup"."i0") AS "a0"
  FROM (
    SELECT DISTINCT
      "orders".order_id AS "__pk0",
      "p"."period" AS "__period",
      "p"."period" AS "g0",
      "products".category AS "g1",
      "orders".order_id AS "i0"
    FROM orders AS "orders"
    LEFT JOIN order_items AS "order_items"
      ON "order_items".order_id = "orders".order_id
    LEFT JOIN products AS "products"
      ON "order_items".product_id = "products".product_id
    INNER JOIN "f0_periods" AS "p"
      ON "p"."read" = DATE("orders".order_date, 'start of year')
  ) AS "dedup"
  GROUP BY
    "dedup"."g0",
    "dedup"."g1"
)
SELECT
  "m"."g0" AS "metric_time__year",
  "m"."g1" AS "ProductsModel__category",
  "m"."a0" AS "ordersLastYear"
FROM "f0" AS "m"
ORDER BY
  "metric_time__year" ASC NULLS LAST,
  "ProductsModel__category" ASC NULLS LAST
