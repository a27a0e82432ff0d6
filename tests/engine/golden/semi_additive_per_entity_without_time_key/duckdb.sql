WITH "f0" AS (
  SELECT
    "semi"."g0" AS "g0",
    COUNT("semi"."i0") AS "a0"
  FROM (
    SELECT
      "orders".channel AS "g0",
      "orders".order_id AS "i0",
      CAST("orders".order_date AS DATE) AS "__day",
      MAX(CAST("orders".order_date AS DATE)) OVER (PARTITION BY UPPER(TRIM("orders".customer_ref))) AS "__window"
    FROM orders AS "orders"
  ) AS "semi"
  WHERE
    "semi"."__day" = "semi"."__window"
  GROUP BY
    "semi"."g0"
), "f1" AS (
  SELECT
    "orders".channel AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  GROUP BY
    "orders".channel
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
  "m"."g0" AS "OrdersModel__channel",
  "m"."a0" AS "OrdersModel__ordersOnCustomerLastDay",
  "m"."a1" AS "OrdersModel__orderCount"
FROM "merged" AS "m"
ORDER BY
  "OrdersModel__channel" ASC
