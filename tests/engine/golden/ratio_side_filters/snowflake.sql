WITH "f0" AS (
  SELECT
    CAST(DATE_TRUNC('year', "orders".order_date) AS DATE) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web' AND TRIM("orders".status) = 'shipped'
  GROUP BY
    CAST(DATE_TRUNC('year', "orders".order_date) AS DATE)
), "f1" AS (
  SELECT
    CAST(DATE_TRUNC('year', "orders".order_date) AS DATE) AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  WHERE
    "orders".channel = 'web'
  GROUP BY
    CAST(DATE_TRUNC('year', "orders".order_date) AS DATE)
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
  "m"."g0" AS "OrdersModel__orderDate__year",
  CAST("m"."a0" AS DOUBLE) / NULLIF("m"."a1", 0) AS "webShippedShare"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__orderDate__year" ASC
