SELECT
  TRIM("orders".status) AS "OrdersModel__status",
  SUM(
    CASE
      WHEN "orders".channel = 'store'
      THEN "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    END
  ) AS "storeOrderRevenue",
  SUM(
    "order_items".quantity * "order_items".unit_price * (
      1 - COALESCE("order_items".discount, 0)
    )
  ) AS "OrderItemsModel__revenue"
FROM order_items AS "order_items"
LEFT JOIN orders AS "orders"
  ON "order_items".order_id = "orders".order_id
GROUP BY
  TRIM("orders".status)
ORDER BY
  "OrdersModel__status" ASC
