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
  AND `orders`.order_date BETWEEN '2023-06-01' AND '2023-08-31'
  AND NOT (
    NOT `orders`.shipped_at IS NULL
  ) = FALSE
GROUP BY
  TRIM(`orders`.status)
ORDER BY
  CASE WHEN TRIM(`orders`.status) IS NULL THEN 1 ELSE 0 END, TRIM(`orders`.status) ASC
