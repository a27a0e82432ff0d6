SELECT
  MAKEDATE(YEAR(`orders`.order_date), 1) AS `OrdersModel__orderDate__year`,
  DATE_ADD(
    MAKEDATE(YEAR(`orders`.order_date), 1),
    INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
  ) AS `OrdersModel__orderDate__quarter`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
GROUP BY
  MAKEDATE(YEAR(`orders`.order_date), 1),
  DATE_ADD(
    MAKEDATE(YEAR(`orders`.order_date), 1),
    INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
  )
ORDER BY
  CASE WHEN MAKEDATE(YEAR(`orders`.order_date), 1) IS NULL THEN 1 ELSE 0 END, MAKEDATE(YEAR(`orders`.order_date), 1) ASC,
  CASE WHEN DATE_ADD(
    MAKEDATE(YEAR(`orders`.order_date), 1),
    INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
  ) IS NULL THEN 1 ELSE 0 END, DATE_ADD(
    MAKEDATE(YEAR(`orders`.order_date), 1),
    INTERVAL (QUARTER(`orders`.order_date) - 1) QUARTER
  ) ASC
