SELECT
  "customers".segment AS "CustomersModel__segment",
  100 * (
    CAST(CAST(SUM(
      CASE
        WHEN "orders".channel = 'web'
        AND "products".category = 'toys'
        AND (
          COALESCE("order_items".discount, 0) > 0
        )
        THEN "order_items".quantity * "order_items".unit_price * (
          1 - COALESCE("order_items".discount, 0)
        )
      END
    ) AS DOUBLE) AS DOUBLE) / NULLIF(
      NULLIF(
        SUM(
          CASE
            WHEN "orders".channel = 'web' AND "products".category = 'toys'
            THEN "order_items".quantity * "order_items".unit_price * (
              1 - COALESCE("order_items".discount, 0)
            )
          END
        ),
        0
      ),
      0
    )
  ) AS "webToyDiscountedPercent",
  CAST(SUM(
    CASE
      WHEN "products".category = 'toys' AND (
        COALESCE("order_items".discount, 0) > 0
      )
      THEN "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    END
  ) AS DOUBLE) / NULLIF(
    SUM(
      CASE
        WHEN "products".category = 'toys'
        THEN "order_items".quantity * "order_items".unit_price * (
          1 - COALESCE("order_items".discount, 0)
        )
      END
    ),
    0
  ) AS "toyDiscountedShare",
  SUM(
    CASE
      WHEN (
        COALESCE("order_items".discount, 0) > 0
      )
      THEN "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    END
  ) AS "discountedRevenue"
FROM order_items AS "order_items"
LEFT JOIN orders AS "orders"
  ON "order_items".order_id = "orders".order_id
LEFT JOIN customers AS "customers"
  ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
LEFT JOIN products AS "products"
  ON "order_items".product_id = "products".product_id
GROUP BY
  "customers".segment
ORDER BY
  "CustomersModel__segment" ASC
