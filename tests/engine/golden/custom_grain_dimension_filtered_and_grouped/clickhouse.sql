WITH "f0" AS (
  SELECT
    "custom_spine0"."fiscal_quarter" AS "g0",
    "orders".channel AS "g1",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  LEFT JOIN time_spine AS "custom_spine0"
    ON "custom_spine0"."date_day" = CAST("orders".order_date AS Nullable(DATE))
  WHERE
    (
      "custom_spine0"."fiscal_quarter"
    ) >= '2024-02-01'
  GROUP BY
    "custom_spine0"."fiscal_quarter",
    "orders".channel
), "f1" AS (
  SELECT
    "custom_spine0"."fiscal_quarter" AS "g0",
    "orders".channel AS "g1",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a1"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN time_spine AS "custom_spine0"
    ON "custom_spine0"."date_day" = CAST("orders".order_date AS Nullable(DATE))
  WHERE
    (
      "custom_spine0"."fiscal_quarter"
    ) >= '2024-02-01'
  GROUP BY
    "custom_spine0"."fiscal_quarter",
    "orders".channel
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
  "m"."g0" AS "OrdersModel__orderDate__fiscal_quarter",
  "m"."g1" AS "OrdersModel__channel",
  "m"."a0" AS "OrdersModel__orderCount",
  CAST("m"."a1" AS Nullable(Float64)) / nullIf("m"."a0", 0) AS "averageOrderValue"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__orderDate__fiscal_quarter" ASC,
  "OrdersModel__channel" ASC
SETTINGS join_use_nulls = 1
