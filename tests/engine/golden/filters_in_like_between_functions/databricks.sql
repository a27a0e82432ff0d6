SELECT
  TRIM(`orders`.status) AS `OrdersModel__status`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`,
  COUNT(DISTINCT UPPER(TRIM(`orders`.customer_ref))) AS `OrdersModel__customerCount`
FROM orders AS `orders`
WHERE
  TRIM(`orders`.status) IN ('shipped', 'delivered')
  AND (
    LOWER(`orders`.channel) LIKE 'w%' OR `orders`.channel = 'store'
  )
  AND `orders`.order_date BETWEEN CAST('2023-06-01' AS DATE) AND CAST('2023-08-31' AS DATE)
  AND NOT (
    NOT `orders`.shipped_at IS NULL
  ) = FALSE
GROUP BY
  TRIM(`orders`.status)
ORDER BY
  `OrdersModel__status` ASC NULLS LAST
