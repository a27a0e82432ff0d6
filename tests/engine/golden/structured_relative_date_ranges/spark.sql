SELECT
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  (
    `orders`.order_date >= ADD_MONTHS(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE), -600)
    AND `orders`.order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
  )
  AND (
    `orders`.order_date >= CAST('2023-03-01' AS DATE)
    AND `orders`.order_date < DATE_ADD(CURRENT_DATE, 1)
  )
  AND (
    NOT (
      `orders`.order_date >= CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
      AND `orders`.order_date < ADD_MONTHS(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE), 1)
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(CURRENT_DATE, -1)
      AND `orders`.order_date < CURRENT_DATE
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= ADD_MONTHS(CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE), -1)
      AND `orders`.order_date < CAST(DATE_TRUNC('month', CURRENT_DATE) AS DATE)
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE)
      AND `orders`.order_date < ADD_MONTHS(CAST(DATE_TRUNC('year', CURRENT_DATE) AS DATE), 12)
    )
    OR `orders`.order_date IS NULL
  )
  AND `orders`.order_date < CURRENT_DATE
  AND (
    NOT (
      CAST(DATE_TRUNC('month', `orders`.shipped_at) AS DATE) >= ADD_MONTHS(CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE), -6)
      AND CAST(DATE_TRUNC('month', `orders`.shipped_at) AS DATE) < CAST(DATE_TRUNC('quarter', CURRENT_DATE) AS DATE)
    )
    OR CAST(DATE_TRUNC('month', `orders`.shipped_at) AS DATE) IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(CURRENT_DATE, -7)
      AND `orders`.order_date < CURRENT_DATE
    )
    OR `orders`.order_date IS NULL
  )
