SELECT
  "dedup"."g0" AS "ProductsModel__category",
  quantileExactInclusive(0.5)(CAST("dedup"."i0" AS Nullable(Float64))) AS "PaymentsModel__medianPayment",
  CASE
    WHEN COUNT("dedup"."i1") = 0
    THEN NULL
    ELSE arrayElement(
      arraySort(groupArray("dedup"."i1")),
      toUInt64(greatest(ceil(COUNT("dedup"."i1") * 0.9), 1))
    )
  END AS "PaymentsModel__p90PaymentDiscrete"
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
SETTINGS join_use_nulls = 1
