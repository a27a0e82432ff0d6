SELECT
  "orders".channel AS "OrdersModel__channel",
  COUNT("orders".order_id) AS "OrdersModel__orderCount"
FROM orders AS "orders"
WHERE
  UPPER(SUBSTRING(TRIM(TRIM("orders".status)), 1, 3)) || '!' IN ('DEL!', 'SHI!')
  AND LENGTH(COALESCE(NULLIF("orders".channel, 'store'), 'x')) >= ABS(ROUND(-2.6))
  AND CASE WHEN "orders".channel = 'web' THEN 1 ELSE 0 END + CAST('1' AS INTEGER) >= 1
  AND "orders".order_date >= CASE
    WHEN STRFTIME('%d', DATE(CURRENT_DATE, '-480 months')) <> STRFTIME('%d', CURRENT_DATE)
    THEN DATE(DATE(CURRENT_DATE, '-480 months'), 'start of month', '-1 days')
    ELSE DATE(CURRENT_DATE, '-480 months')
  END
  AND "orders".order_date < DATE(CURRENT_DATE, '+1 days')
  AND "orders".order_date >= CASE
    WHEN STRFTIME('%d', DATE(DATE('2023-01-01'), '+3 months')) <> STRFTIME('%d', DATE('2023-01-01'))
    THEN DATE(DATE(DATE('2023-01-01'), '+3 months'), 'start of month', '-1 days')
    ELSE DATE(DATE('2023-01-01'), '+3 months')
  END
GROUP BY
  "orders".channel
ORDER BY
  "OrdersModel__channel" ASC NULLS LAST
