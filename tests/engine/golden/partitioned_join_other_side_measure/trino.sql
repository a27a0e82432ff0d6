SELECT
  "dedup"."g0" AS "OrdersModel__channel",
  COUNT("dedup"."i0") AS "CustomerDaysModel__customerDays"
FROM (
  SELECT DISTINCT
    "customerdaysmodel".customer_code AS "__pk0",
    "customerdaysmodel".ds AS "__pk1",
    "orders".channel AS "g0",
    "customerdaysmodel".customer_code AS "i0"
  FROM (
    SELECT
      UPPER(TRIM(customer_ref)) AS customer_code,
      order_date AS ds,
      COUNT(*) AS orders_that_day
    FROM orders
    GROUP BY
      UPPER(TRIM(customer_ref)),
      order_date
  ) AS "customerdaysmodel"
  LEFT JOIN orders AS "orders"
    ON UPPER(TRIM("orders".customer_ref)) = "customerdaysmodel".customer_code
    AND "orders".order_date = "customerdaysmodel".ds
  WHERE
    "orders".order_date >= CAST('2024-06-01' AS DATE)
) AS "dedup"
GROUP BY
  "dedup"."g0"
ORDER BY
  "OrdersModel__channel" ASC
