WITH "f0" AS (
  SELECT
    CAST(STRFTIME('%m', "orders".order_date) AS INTEGER) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    CAST(STRFTIME('%m', "orders".order_date) AS INTEGER)
), "f1" AS (
  SELECT
    CAST(STRFTIME('%m', "payments".paid_at) AS INTEGER) AS "g0",
    COUNT("payments".payment_id) AS "a1"
  FROM payments AS "payments"
  GROUP BY
    CAST(STRFTIME('%m', "payments".paid_at) AS INTEGER)
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
  "metric_time__extract_month" ASC NULLS LAST
