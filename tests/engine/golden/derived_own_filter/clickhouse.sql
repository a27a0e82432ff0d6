WITH "f0" AS (
  SELECT
    TRIM("orders".status) AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a0"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  WHERE
    "orders".channel = 'store'
  GROUP BY
    TRIM("orders".status)
), "f1" AS (
  SELECT
    TRIM("orders".status) AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a1"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  GROUP BY
    TRIM("orders".status)
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
  "m"."g0" AS "OrdersModel__status",
  "m"."a0" AS "storeOrderRevenue",
  "m"."a1" AS "OrderItemsModel__revenue"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__status" ASC
SETTINGS join_use_nulls = 1
