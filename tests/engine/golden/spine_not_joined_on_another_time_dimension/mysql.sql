SELECT
  DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) AS `OrdersModel__shippedAt__month`,
  COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
FROM orders AS `orders`
GROUP BY
  DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY)
ORDER BY
  CASE WHEN DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) IS NULL THEN 1 ELSE 0 END, DATE_SUB(DATE(`orders`.shipped_at), INTERVAL (DAYOFMONTH(`orders`.shipped_at) - 1) DAY) ASC
