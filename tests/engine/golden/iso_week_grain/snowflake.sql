SELECT
  CAST(DATEADD(
    DAY,
    -(
      DAYOFWEEKISO(CAST("orders".order_date AS DATE)) - 1
    ),
    CAST("orders".order_date AS DATE)
  ) AS DATE) AS "OrdersModel__orderDate__week",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  "orders".order_date <= CAST('2023-02-28' AS DATE)
GROUP BY
  CAST(DATEADD(
    DAY,
    -(
      DAYOFWEEKISO(CAST("orders".order_date AS DATE)) - 1
    ),
    CAST("orders".order_date AS DATE)
  ) AS DATE)
ORDER BY
  "OrdersModel__orderDate__week" ASC
