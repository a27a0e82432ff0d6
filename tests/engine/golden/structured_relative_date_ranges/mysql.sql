SELECT
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  (
    `orders`.order_date >= DATE_ADD(
      DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY),
      INTERVAL -600 MONTH
    )
    AND `orders`.order_date < DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY)
  )
  AND (
    `orders`.order_date >= '2023-03-01'
    AND `orders`.order_date < DATE_ADD(CURRENT_DATE, INTERVAL 1 DAY)
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY)
      AND `orders`.order_date < DATE_ADD(
        DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY),
        INTERVAL 1 MONTH
      )
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
      `orders`.order_date >= DATE_ADD(
        DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY),
        INTERVAL -1 MONTH
      )
      AND `orders`.order_date < DATE_SUB(DATE(CURRENT_DATE), INTERVAL (DAYOFMONTH(CURRENT_DATE) - 1) DAY)
    )
    OR `orders`.order_date IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= MAKEDATE(YEAR(CURRENT_DATE), 1)
      AND `orders`.order_date < DATE_ADD(MAKEDATE(YEAR(CURRENT_DATE), 1), INTERVAL 1 YEAR)
    )
    OR `orders`.order_date IS NULL
  )
  AND `orders`.order_date < CURRENT_DATE
  AND (
    NOT (
      DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) >= DATE_ADD(
        DATE_ADD(MAKEDATE(YEAR(CURRENT_DATE), 1), INTERVAL (QUARTER(CURRENT_DATE) - 1) QUARTER),
        INTERVAL -6 MONTH
      )
      AND DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) < DATE_ADD(MAKEDATE(YEAR(CURRENT_DATE), 1), INTERVAL (QUARTER(CURRENT_DATE) - 1) QUARTER)
    )
    OR DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) IS NULL
  )
  AND (
    NOT (
      `orders`.order_date >= DATE_ADD(CURRENT_DATE, INTERVAL -7 DAY)
      AND `orders`.order_date < CURRENT_DATE
    )
    OR `orders`.order_date IS NULL
  )
