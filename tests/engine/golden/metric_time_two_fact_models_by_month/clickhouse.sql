WITH "f0" AS (
  SELECT
    toStartOfMonth("orders".order_date) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date >= CAST('2024-01-01' AS Nullable(DATE))
  GROUP BY
    toStartOfMonth("orders".order_date)
), "f1" AS (
  SELECT
    toStartOfMonth("payments".paid_at) AS "g0",
    SUM("payments".amount) AS "a1"
  FROM payments AS "payments"
  WHERE
    "payments".paid_at >= CAST('2024-01-01' AS Nullable(DateTime))
  GROUP BY
    toStartOfMonth("payments".paid_at)
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
  "m"."g0" AS "metric_time__month",
  "m"."a0" AS "OrdersModel__orderCount",
  "m"."a1" AS "PaymentsModel__amountPaid"
FROM "merged" AS "m"
ORDER BY
  "metric_time__month" ASC
SETTINGS join_use_nulls = 1
