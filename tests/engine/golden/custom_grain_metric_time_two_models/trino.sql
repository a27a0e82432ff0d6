WITH "f0" AS (
  SELECT
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("orders".order_date AS DATE)
    ) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  GROUP BY
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("orders".order_date AS DATE)
    )
), "f1" AS (
  SELECT
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("payments".paid_at AS DATE)
    ) AS "g0",
    SUM("payments".amount) AS "a1"
  FROM payments AS "payments"
  GROUP BY
    (
      SELECT
        "custom_spine"."fiscal_quarter"
      FROM time_spine AS "custom_spine"
      WHERE
        "custom_spine"."date_day" = CAST("payments".paid_at AS DATE)
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
      (
        SELECT
          "a1"
        FROM "f1"
        WHERE
          FALSE
      ) AS "a1"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      (
        SELECT
          "a0"
        FROM "f0"
        WHERE
          FALSE
      ) AS "a0",
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
