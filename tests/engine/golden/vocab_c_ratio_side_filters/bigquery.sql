SELECT
  DATE_TRUNC(DATE(`orders`.order_date), YEAR) AS `OrdersModel__orderDate__year`,
  CAST(COUNT(
    CASE
      WHEN `orders`.channel = 'web' AND TRIM(`orders`.status) = 'shipped'
      THEN `orders`.order_id
    END
  ) AS FLOAT64) / NULLIF(COUNT(CASE WHEN `orders`.channel = 'web' THEN `orders`.order_id END), 0) AS `webShippedShare`
FROM orders AS `orders`
GROUP BY
  `OrdersModel__orderDate__year`
ORDER BY
  `OrdersModel__orderDate__year` ASC NULLS LAST
