SELECT
  DATE_TRUNC(DATE(`orders`.shipped_at), YEAR) AS `OrdersModel__shippedAt__year`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  `OrdersModel__shippedAt__year`
ORDER BY
  `OrdersModel__shippedAt__year` ASC NULLS LAST
