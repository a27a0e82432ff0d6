SELECT
  `customers`.segment AS `CustomersModel__segment`,
  COUNT(`customers`.customer_id) AS `CustomersModel__customerCount`
FROM customers AS `customers`
LEFT JOIN (
  SELECT
    `customers`.customer_code AS `CustomersModel__customerCode`,
    COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers`
    ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
  GROUP BY
    `customers`.customer_code
) AS `metric_6b0d1667`
  ON `customers`.customer_code = `metric_6b0d1667`.`CustomersModel__customerCode`
WHERE
  `metric_6b0d1667`.`OrdersModel__orderCount` >= 5
GROUP BY
  `customers`.segment
ORDER BY
  `CustomersModel__segment` ASC NULLS LAST
