WITH "f0" AS (
  SELECT
    TRIM("orders".status) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web'
  GROUP BY
    TRIM("orders".status)
), "f1" AS (
  SELECT
    TRIM("orders".status) AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'store'
  GROUP BY
    TRIM("orders".status)
), "f2" AS (
  SELECT
    TRIM("orders".status) AS "g0",
    COUNT("orders".order_id) AS "a2"
  FROM orders AS "orders"
  GROUP BY
    TRIM("orders".status)
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1",
    MAX("a2") AS "a2"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1",
      NULL AS "a2"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1",
      NULL AS "a2"
    FROM "f1"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      "a2"
    FROM "f2"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "OrdersModel__status",
  "m"."a0" - "m"."a1" AS "webMinusStoreOrders",
  "m"."a2" AS "OrdersModel__orderCount"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__status" ASC
