SELECT
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  (
    "orders".order_date >= CAST(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE) + INTERVAL '-600' MONTH AS DATE)
    AND "orders".order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
  )
  AND (
    "orders".order_date >= CAST('2023-03-01' AS DATE)
    AND "orders".order_date < CAST(CURRENT_DATE + INTERVAL '1' DAY AS DATE)
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
      AND "orders".order_date < CAST(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE) + INTERVAL '1' MONTH AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(CURRENT_DATE + INTERVAL '-1' DAY AS DATE)
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE) + INTERVAL '-1' MONTH AS DATE)
      AND "orders".order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE)
      AND "orders".order_date < CAST(CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE) + INTERVAL '1' YEAR AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND "orders".order_date < CURRENT_DATE
  AND (
    NOT (
      CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) >= CAST(CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE) + INTERVAL '-6' MONTH AS DATE)
      AND CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) < CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE)
    )
    OR CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(CURRENT_DATE + INTERVAL '-7' DAY AS DATE)
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
