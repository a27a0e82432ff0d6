SELECT
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  UPPER(SUBSTRING(TRIM(TRIM("orders".status)), 1, 3)) || '!' IN ('DEL!', 'SHI!')
  AND CHAR_LENGTH(COALESCE(nullIf("orders".channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN "orders".channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS Nullable(Int32)) >= 1
  AND "orders".order_date >= addYears(CURRENT_DATE(), -40)
  AND "orders".order_date < addDays(CURRENT_DATE(), 1)
  AND "orders".order_date >= addMonths(CAST('2023-01-01' AS Nullable(DATE)), 3)
GROUP BY
  "orders".channel
ORDER BY
  "OrdersModel__channel" ASC
SETTINGS join_use_nulls = 1
