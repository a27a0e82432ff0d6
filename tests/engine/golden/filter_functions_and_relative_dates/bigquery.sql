SELECT
  `orders`.channel AS `OrdersModel__channel`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
WHERE
  UPPER(SUBSTRING(TRIM(TRIM(`orders`.status)), 1, 3)) || '!' IN ('DEL!', 'SHI!')
  AND LENGTH(COALESCE(NULLIF(`orders`.channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN `orders`.channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS INT64) >= 1
  AND `orders`.order_date >= DATE_ADD(CURRENT_DATE, INTERVAL -40 YEAR)
  AND `orders`.order_date < DATE_ADD(CURRENT_DATE, INTERVAL 1 DAY)
  AND `orders`.order_date >= DATE_ADD(CAST('2023-01-01' AS DATE), INTERVAL 3 MONTH)
GROUP BY
  `OrdersModel__channel`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
