SELECT
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  UPPER(SUBSTRING(TRIM(TRIM("orders".status)), 1, 3)) || '!' IN ('DEL!', 'SHI!')
  AND LENGTH(COALESCE(NULLIF("orders".channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN "orders".channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS INT) >= 1
  AND "orders".order_date >= CAST(DATEADD(YEAR, -40, CURRENT_DATE) AS DATE)
  AND "orders".order_date < CAST(DATEADD(DAY, 1, CURRENT_DATE) AS DATE)
  AND "orders".order_date >= CAST(DATEADD(MONTH, 3, CAST('2023-01-01' AS DATE)) AS DATE)
GROUP BY
  "orders".channel
ORDER BY
  "OrdersModel__channel" ASC
