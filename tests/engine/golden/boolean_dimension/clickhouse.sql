WITH "f0" AS (
  SELECT
    NOT (
      "orders".shipped_at IS NULL
    ) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    NOT (
      "orders".shipped_at IS NULL
    )
), "f1" AS (
  SELECT
    NOT (
      "orders".shipped_at IS NULL
    ) AS "g0",
    COUNT("order_items".line_number) AS "a1"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  GROUP BY
    NOT (
      "orders".shipped_at IS NULL
    )
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
  "m"."g0" AS "OrdersModel__isShipped",
  "m"."a0" AS "OrdersModel__orderCount",
  "m"."a1" AS "OrderItemsModel__lineCount"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__isShipped" ASC
SETTINGS join_use_nulls = 1
