WITH "f0" AS (
  SELECT
    "orders".order_date AS "g0",
    SUM("payments".amount) AS "a0"
  FROM payments AS "payments"
  LEFT JOIN orders AS "orders"
    ON "payments".order_id = "orders".order_id
  GROUP BY
    "orders".order_date
), "f1" AS (
  SELECT
    "orders".order_date AS "g0",
    COUNT("orders".order_id) AS "a1"
  FROM orders AS "orders"
  GROUP BY
    "orders".order_date
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
      ) AS "a1",
      1 AS "_listed"
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
      "a1",
      NULL AS "_listed"
    FROM "f1"
  ) AS "stacked"
  GROUP BY
    "g0"
  HAVING
    MAX("_listed") = 1
)
SELECT
  "m"."g0" AS "OrdersModel__orderDate",
  "m"."a0" AS "PaymentsModel__amountPaid"
FROM "merged" AS "m"
WHERE
  "m"."a1" > 0
ORDER BY
  "OrdersModel__orderDate" ASC
