SELECT
  `customerdaysmodel`.orders_that_day AS `CustomerDaysModel__ordersThatDay`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
LEFT JOIN (
  SELECT
    UPPER(TRIM(customer_ref)) AS customer_code,
    order_date AS ds,
    COUNT(*) AS orders_that_day
  FROM orders
  GROUP BY
    UPPER(TRIM(customer_ref)),
    order_date
) AS `customerdaysmodel`
  ON UPPER(TRIM(`orders`.customer_ref)) = `customerdaysmodel`.customer_code
  AND `orders`.order_date = `customerdaysmodel`.ds
GROUP BY
  `customerdaysmodel`.orders_that_day
ORDER BY
  `CustomerDaysModel__ordersThatDay` ASC NULLS LAST
