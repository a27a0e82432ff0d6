SELECT
  CAST(DATE_TRUNC('year', `orders`.order_date) AS DATE) AS `OrdersModel__orderDate__year`,
  CAST(COUNT(
    CASE
      WHEN `orders`.channel = 'web' AND TRIM(`orders`.status) = 'shipped'
      THEN `orders`.order_id
    END
  ) AS DOUBLE) / NULLIF(COUNT(CASE WHEN `orders`.channel = 'web' THEN `orders`.order_id END), 0) AS `webShippedShare`
FROM orders AS `orders`
GROUP BY
  CAST(DATE_TRUNC('year', `orders`.order_date) AS DATE)
ORDER BY
  `OrdersModel__orderDate__year` ASC NULLS LAST
