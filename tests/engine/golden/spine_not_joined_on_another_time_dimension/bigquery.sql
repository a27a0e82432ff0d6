SELECT
  DATE_TRUNC(DATE(`orders`.shipped_at), MONTH) AS `OrdersModel__shippedAt__month`,
  COALESCE(COUNT(`orders`.order_id), 0) AS `orderCountFilled`
FROM orders AS `orders`
GROUP BY
  `OrdersModel__shippedAt__month`
ORDER BY
  `OrdersModel__shippedAt__month` ASC NULLS LAST
