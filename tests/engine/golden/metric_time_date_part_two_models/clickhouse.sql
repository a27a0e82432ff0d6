WITH "f0" AS (
  SELECT
    CAST(EXTRACT(MONTH FROM "orders".order_date) AS Nullable(Int32)) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    CAST(EXTRACT(MONTH FROM "orders".order_date) AS Nullable(Int32))
), "f1" AS (
  SELECT
    CAST(EXTRACT(MONTH FROM "payments".paid_at) AS Nullable(Int32)) AS "g0",
    COUNT("payments".payment_id) AS "a1"
  FROM payments AS "payments"
  GROUP BY
    CAST(EXTRACT(MONTH FROM "payments".paid_at) AS Nullable(Int32))
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
  "m"."g0" AS "metric_time__extract_month",
  "m"."a0" AS "OrdersModel__orderCount",
  "m"."a1" AS "PaymentsModel__paymentCount"
FROM "merged" AS "m"
ORDER BY
  "metric_time__extract_month" ASC
SETTINGS join_use_nulls = 1
