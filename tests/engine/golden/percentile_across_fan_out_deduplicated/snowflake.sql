SELECT
  "dedup"."g0" AS "ProductsModel__category",
  PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY
    CAST("dedup"."i0" AS DOUBLE)) AS "PaymentsModel__medianPayment",
  PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY
    "dedup"."i1") AS "PaymentsModel__p90PaymentDiscrete"
FROM (
  SELECT DISTINCT
    "payments".payment_id AS "__pk0",
    "products".category AS "g0",
    "payments".amount AS "i0",
    "payments".amount AS "i1"
  FROM payments AS "payments"
  LEFT JOIN orders AS "orders"
    ON "payments".order_id = "orders".order_id
  LEFT JOIN order_items AS "order_items"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN products AS "products"
    ON "order_items".product_id = "products".product_id
) AS "dedup"
GROUP BY
  "dedup"."g0"
ORDER BY
  "ProductsModel__category" ASC
