WITH "f0" AS (
  SELECT
    CAST("orders".order_date AS DATE) AS "g0",
    COUNT("orders".order_id) AS "a0"
  FROM orders AS "orders"
  WHERE
    "orders".order_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-04-10' AS DATE)
  GROUP BY
    CAST("orders".order_date AS DATE)
), "f1_periods" AS (
  SELECT
    CAST("spine"."date_day" AS DATE) AS "period"
  FROM time_spine AS "spine"
), "f1" AS (
  SELECT
    "p"."period" AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  INNER JOIN "f1_periods" AS "p"
    ON CAST(DATE_TRUNC('month', "p"."period") AS DATE) = CAST("orders".order_date AS DATE)
  WHERE
    "p"."period" BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-04-10' AS DATE)
    AND "orders".order_date BETWEEN CAST('2024-03-01' AS DATE) AND CAST('2024-04-10' AS DATE)
  GROUP BY
    "p"."period"
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
  "m"."g0" AS "metric_time__day",
  "m"."a0" - "m"."a1" AS "ordersSinceStartOfMonth",
  "m"."a0" AS "OrdersModel__ordersPlaced"
FROM "merged" AS "m"
ORDER BY
  "metric_time__day" ASC
