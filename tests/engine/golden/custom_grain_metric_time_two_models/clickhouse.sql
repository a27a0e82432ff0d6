WITH "f0" AS (
  SELECT
    "custom_spine0"."fiscal_quarter" AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  LEFT JOIN time_spine AS "custom_spine0"
    ON "custom_spine0"."date_day" = CAST("orders".order_date AS Nullable(DATE))
  GROUP BY
    "custom_spine0"."fiscal_quarter"
), "f1" AS (
  SELECT
    "custom_spine0"."fiscal_quarter" AS "g0",
    SUM("payments".amount) AS "a1"
  FROM payments AS "payments"
  LEFT JOIN time_spine AS "custom_spine0"
    ON "custom_spine0"."date_day" = CAST("payments".paid_at AS Nullable(DATE))
  GROUP BY
    "custom_spine0"."fiscal_quarter"
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
  "m"."g0" AS "metric_time__fiscal_quarter",
  "m"."a0" AS "OrdersModel__orderCount",
  "m"."a1" AS "PaymentsModel__amountPaid"
FROM "merged" AS "m"
ORDER BY
  "metric_time__fiscal_quarter" ASC
SETTINGS join_use_nulls = 1
