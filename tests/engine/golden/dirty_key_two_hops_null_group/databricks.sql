SELECT
  `nations`.nation_name AS `NationsModel__country`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
LEFT JOIN customers AS `customers`
  ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
LEFT JOIN nations AS `nations`
  ON `customers`.nation_id = `nations`.nation_id
GROUP BY
  `nations`.nation_name
ORDER BY
  `NationsModel__country` ASC NULLS LAST
