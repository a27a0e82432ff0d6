SELECT
  TRIM("orders".status) AS "OrdersModel__status",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  (
    (
      LOWER(TRIM("orders".status)) LIKE '%hip%' ESCAPE '!'
      OR LOWER(TRIM("orders".status)) LIKE '%!%%' ESCAPE '!'
    )
    OR LOWER(TRIM("orders".status)) LIKE 'del%' ESCAPE '!'
    OR LOWER(TRIM("orders".status)) LIKE '%ned' ESCAPE '!'
  )
  AND (
    NOT LOWER(TRIM("orders".status)) LIKE '%!_%' ESCAPE '!'
    OR TRIM("orders".status) IS NULL
  )
  AND (
    NOT LOWER(TRIM("orders".status)) LIKE 'x%' ESCAPE '!'
    OR TRIM("orders".status) IS NULL
  )
  AND (
    NOT LOWER(TRIM("orders".status)) LIKE '%zz' ESCAPE '!'
    OR TRIM("orders".status) IS NULL
  )
GROUP BY
  TRIM("orders".status)
ORDER BY
  "OrdersModel__status" ASC
SETTINGS join_use_nulls = 1
