SELECT
  `customers`.segment AS `CustomersModel__segment`,
  COUNT(`customers`.customer_id) AS `CustomersModel__customerCount`
FROM customers AS `customers`
GROUP BY
  `customers`.segment
ORDER BY
  `CustomersModel__segment` DESC
