SELECT
  TRIM(`orders`.status) AS `OrdersModel__status`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  `orders`.order_id > 100010
  AND `orders`.order_id <= 102400
  AND NOT TRIM(`orders`.status) IS NULL
  AND (
    `orders`.shipped_at IS NULL
  )
GROUP BY
  TRIM(`orders`.status)
HAVING
  COUNT(`orders`.order_id) >= 2 AND COUNT(`orders`.order_id) < 100000
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
