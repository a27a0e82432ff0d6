SELECT
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  (
    "orders".order_date >= addMonths(toStartOfMonth(CURRENT_DATE()), -600)
    AND "orders".order_date < toStartOfMonth(CURRENT_DATE())
  )
  AND (
    "orders".order_date >= CAST('2023-03-01' AS Nullable(DATE))
    AND "orders".order_date < addDays(CURRENT_DATE(), 1)
  )
  AND (
    NOT (
      "orders".order_date >= toStartOfMonth(CURRENT_DATE())
      AND "orders".order_date < addMonths(toStartOfMonth(CURRENT_DATE()), 1)
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= addDays(CURRENT_DATE(), -1)
      AND "orders".order_date < CURRENT_DATE()
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= addMonths(toStartOfMonth(CURRENT_DATE()), -1)
      AND "orders".order_date < toStartOfMonth(CURRENT_DATE())
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= toStartOfYear(CURRENT_DATE())
      AND "orders".order_date < addYears(toStartOfYear(CURRENT_DATE()), 1)
    )
    OR "orders".order_date IS NULL
  )
  AND "orders".order_date < CURRENT_DATE()
  AND (
    NOT (
      toStartOfMonth("orders".shipped_at) >= addMonths(toStartOfQuarter(CURRENT_DATE()), -6)
      AND toStartOfMonth("orders".shipped_at) < toStartOfQuarter(CURRENT_DATE())
    )
    OR toStartOfMonth("orders".shipped_at) IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= addDays(CURRENT_DATE(), -7)
      AND "orders".order_date < CURRENT_DATE()
    )
    OR "orders".order_date IS NULL
  )
SETTINGS join_use_nulls = 1
