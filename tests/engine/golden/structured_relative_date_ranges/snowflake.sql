SELECT
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  (
    "orders".order_date >= CAST(DATEADD(MONTH, -600, CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)) AS DATE)
    AND "orders".order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
  )
  AND (
    "orders".order_date >= CAST('2023-03-01' AS DATE)
    AND "orders".order_date < CAST(DATEADD(DAY, 1, CURRENT_DATE) AS DATE)
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
      AND "orders".order_date < CAST(DATEADD(MONTH, 1, CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)) AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATEADD(DAY, -1, CURRENT_DATE) AS DATE)
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATEADD(MONTH, -1, CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)) AS DATE)
      AND "orders".order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE)
      AND "orders".order_date < CAST(DATEADD(YEAR, 1, CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE)) AS DATE)
    )
    OR "orders".order_date IS NULL
  )
  AND "orders".order_date < CURRENT_DATE
  AND (
    NOT (
      CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) >= CAST(DATEADD(MONTH, -6, CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE)) AS DATE)
      AND CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) < CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE)
    )
    OR CAST(DATE_TRUNC('month', "orders".shipped_at) AS DATE) IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= CAST(DATEADD(DAY, -7, CURRENT_DATE) AS DATE)
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
