SELECT
  `customers`.segment AS `CustomersModel__segment`,
  COUNT(`customers`.customer_id) AS `CustomersModel__customerCount`
FROM customers AS `customers`
GROUP BY
  `CustomersModel__segment`
ORDER BY
  `CustomersModel__segment` DESC
