SELECT
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  (
    `orders`.order_date >= DATE_ADD(DATE_TRUNC(DATE(CURRENT_DATE), MONTH), INTERVAL -600 MONTH)
    AND `orders`.order_date < DATE_TRUNC(DATE(CURRENT_DATE), MONTH)
  )
  AND (
    `orders`.order_date >= CAST('2023-03-01' AS DATE)
    AND `orders`.order_date < DATE_ADD(CURRENT_DATE, INTERVAL 1 DAY)
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_TRUNC(DATE(CURRENT_DATE), MONTH)
      AND `orders`.order_date < DATE_ADD(DATE_TRUNC(DATE(CURRENT_DATE), MONTH), INTERVAL 1 MONTH)
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(CURRENT_DATE, INTERVAL -1 DAY)
      AND `orders`.order_date < CURRENT_DATE
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(DATE_TRUNC(DATE(CURRENT_DATE), MONTH), INTERVAL -1 MONTH)
      AND `orders`.order_date < DATE_TRUNC(DATE(CURRENT_DATE), MONTH)
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_TRUNC(DATE(CURRENT_DATE), YEAR)
      AND `orders`.order_date < DATE_ADD(DATE_TRUNC(DATE(CURRENT_DATE), YEAR), INTERVAL 1 YEAR)
    )
    OR `orders`.order_date IS NULL
  )
  AND `orders`.order_date < CURRENT_DATE
  AND (
    NOT (
      DATE_TRUNC(DATE(`orders`.shipped_at), MONTH) >= DATE_ADD(DATE_TRUNC(DATE(CURRENT_DATE), QUARTER), INTERVAL -6 MONTH)
      AND DATE_TRUNC(DATE(`orders`.shipped_at), MONTH) < DATE_TRUNC(DATE(CURRENT_DATE), QUARTER)
    )
    OR DATE_TRUNC(DATE(`orders`.shipped_at), MONTH) IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(CURRENT_DATE, INTERVAL -7 DAY)
      AND `orders`.order_date < CURRENT_DATE
    )
    OR `orders`.order_date IS NULL
  )
