SELECT
  MAKEDATE(YEAR(`orders`.order_date), 1) AS `OrdersModel__orderDate__year`,
  CAST(COUNT(
    CASE
      WHEN `orders`.channel = 'web' AND TRIM(`orders`.status) = 'shipped'
      THEN `orders`.order_id
    END
  ) AS DOUBLE) / NULLIF(COUNT(CASE WHEN `orders`.channel = 'web' THEN `orders`.order_id END), 0) AS `webShippedShare`
FROM orders AS `orders`
GROUP BY
  MAKEDATE(YEAR(`orders`.order_date), 1)
ORDER BY
  CASE WHEN MAKEDATE(YEAR(`orders`.order_date), 1) IS NULL THEN 1 ELSE 0 END, MAKEDATE(YEAR(`orders`.order_date), 1) ASC
