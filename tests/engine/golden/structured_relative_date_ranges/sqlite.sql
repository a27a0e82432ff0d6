SELECT
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  (
    "orders".order_date >= DATE(DATE(CURRENT_DATE, 'start of month'), '-600 months')
    AND "orders".order_date < DATE(CURRENT_DATE, 'start of month')
  )
  AND (
    "orders".order_date >= '2023-03-01'
    AND "orders".order_date < DATE(CURRENT_DATE, '+1 days')
  )
  AND (
    NOT (
      "orders".order_date >= DATE(CURRENT_DATE, 'start of month')
      AND "orders".order_date < DATE(DATE(CURRENT_DATE, 'start of month'), '+1 months')
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= DATE(CURRENT_DATE, '-1 days')
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= DATE(DATE(CURRENT_DATE, 'start of month'), '-1 months')
      AND "orders".order_date < DATE(CURRENT_DATE, 'start of month')
    )
    OR "orders".order_date IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= DATE(CURRENT_DATE, 'start of year')
      AND "orders".order_date < DATE(DATE(CURRENT_DATE, 'start of year'), '+1 years')
    )
    OR "orders".order_date IS NULL
  )
  AND "orders".order_date < CURRENT_DATE
  AND (
    NOT (
      DATE("orders".shipped_at, 'start of month') >= DATE(
        DATE(
          CURRENT_DATE,
          'start of month',
          '-' || (
            (
              CAST(STRFTIME('%m', CURRENT_DATE) AS INTEGER) - 1
            ) % 3
          ) || ' months'
        ),
        '-6 months'
      )
      AND DATE("orders".shipped_at, 'start of month') < DATE(
        CURRENT_DATE,
        'start of month',
        '-' || (
          (
            CAST(STRFTIME('%m', CURRENT_DATE) AS INTEGER) - 1
          ) % 3
        ) || ' months'
      )
    )
    OR DATE("orders".shipped_at, 'start of month') IS NULL
  )
  AND (
    NOT (
      "orders".order_date >= DATE(CURRENT_DATE, '-7 days')
      AND "orders".order_date < CURRENT_DATE
    )
    OR "orders".order_date IS NULL
  )
