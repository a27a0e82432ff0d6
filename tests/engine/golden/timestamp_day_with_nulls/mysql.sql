SELECT
  MAKEDATE(YEAR(`orders`.shipped_at), 1) AS `OrdersModel__shippedAt__year`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  MAKEDATE(YEAR(`orders`.shipped_at), 1)
ORDER BY
  CASE WHEN MAKEDATE(YEAR(`orders`.shipped_at), 1) IS NULL THEN 1 ELSE 0 END, MAKEDATE(YEAR(`orders`.shipped_at), 1) ASC
