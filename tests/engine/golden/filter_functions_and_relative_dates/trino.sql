SELECT
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  CONCAT(
    CAST(UPPER(SUBSTR(TRIM(TRIM("orders".status)), 1, 3)) AS VARCHAR),
    CAST('!' AS VARCHAR)
  ) IN ('DEL!', 'SHI!')
  AND LENGTH(COALESCE(NULLIF("orders".channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN "orders".channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS INTEGER) >= 1
  AND "orders".order_date >= DATE_ADD('year', -40, CURRENT_DATE)
  AND "orders".order_date < DATE_ADD('day', 1, CURRENT_DATE)
  AND "orders".order_date >= DATE_ADD('month', 3, CAST('2023-01-01' AS DATE))
GROUP BY
  "orders".channel
ORDER BY
  "OrdersModel__channel" ASC
