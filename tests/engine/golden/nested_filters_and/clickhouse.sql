WITH "f0" AS (
  SELECT
    "customers".segment AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a0"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN customers AS "customers"
    ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
  LEFT JOIN products AS "products"
    ON "order_items".product_id = "products".product_id
  WHERE
    "orders".channel = 'web'
    AND "products".category = 'toys'
    AND (
      COALESCE("order_items".discount, 0) > 0
    )
  GROUP BY
    "customers".segment
), "f1" AS (
  SELECT
    "customers".segment AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a1"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN customers AS "customers"
    ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
  LEFT JOIN products AS "products"
    ON "order_items".product_id = "products".product_id
  WHERE
    "orders".channel = 'web' AND "products".category = 'toys'
  GROUP BY
    "customers".segment
), "f2" AS (
  SELECT
    "customers".segment AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a2"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN customers AS "customers"
    ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
  LEFT JOIN products AS "products"
    ON "order_items".product_id = "products".product_id
  WHERE
    "products".category = 'toys' AND (
      COALESCE("order_items".discount, 0) > 0
    )
  GROUP BY
    "customers".segment
), "f3" AS (
  SELECT
    "customers".segment AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a3"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN customers AS "customers"
    ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
  LEFT JOIN products AS "products"
    ON "order_items".product_id = "products".product_id
  WHERE
    "products".category = 'toys'
  GROUP BY
    "customers".segment
), "f4" AS (
  SELECT
    "customers".segment AS "g0",
    SUM(
      "order_items".quantity * "order_items".unit_price * (
        1 - COALESCE("order_items".discount, 0)
      )
    ) AS "a4"
  FROM order_items AS "order_items"
  LEFT JOIN orders AS "orders"
    ON "order_items".order_id = "orders".order_id
  LEFT JOIN customers AS "customers"
    ON UPPER(TRIM("orders".customer_ref)) = "customers".customer_code
  WHERE
    (
      COALESCE("order_items".discount, 0) > 0
    )
  GROUP BY
    "customers".segment
), "merged" AS (
  SELECT
    "g0",
    MAX("a0") AS "a0",
    MAX("a1") AS "a1",
    MAX("a2") AS "a2",
    MAX("a3") AS "a3",
    MAX("a4") AS "a4"
  FROM (
    SELECT
      "g0",
      "a0",
      NULL AS "a1",
      NULL AS "a2",
      NULL AS "a3",
      NULL AS "a4"
    FROM "f0"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      "a1",
      NULL AS "a2",
      NULL AS "a3",
      NULL AS "a4"
    FROM "f1"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      "a2",
      NULL AS "a3",
      NULL AS "a4"
    FROM "f2"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      NULL AS "a2",
      "a3",
      NULL AS "a4"
    FROM "f3"
    UNION ALL
    SELECT
      "g0",
      NULL AS "a0",
      NULL AS "a1",
      NULL AS "a2",
      NULL AS "a3",
      "a4"
    FROM "f4"
  ) AS "stacked"
  GROUP BY
    "g0"
)
SELECT
  "m"."g0" AS "CustomersModel__segment",
  100 * (
    CAST(CAST("m"."a0" AS Nullable(Float64)) AS Nullable(Float64)) / nullIf(nullIf("m"."a1", 0), 0)
  ) AS "webToyDiscountedPercent",
  CAST("m"."a2" AS Nullable(Float64)) / nullIf("m"."a3", 0) AS "toyDiscountedShare",
  "m"."a4" AS "discountedRevenue"
FROM "merged" AS "m"
ORDER BY
  "CustomersModel__segment" ASC
SETTINGS join_use_nulls = 1
