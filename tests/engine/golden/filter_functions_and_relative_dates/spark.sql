SELECT
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  UPPER(SUBSTRING(TRIM(TRIM(`orders`.status)), 1, 3)) || '!' IN ('DEL!', 'SHI!')
  AND LENGTH(COALESCE(NULLIF(`orders`.channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN `orders`.channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS INT) >= 1
  AND `orders`.order_date >= ADD_MONTHS(CURRENT_DATE, -480)
  AND `orders`.order_date < DATE_ADD(CURRENT_DATE, 1)
  AND `orders`.order_date >= ADD_MONTHS(CAST('2023-01-01' AS DATE), 3)
GROUP BY
  `orders`.channel
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
