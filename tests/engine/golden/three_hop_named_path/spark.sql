SELECT
  `regions`.region_name AS `customer.nation.region.RegionsModel__region`,
  COUNT(`orders`.order_id) AS `OrdersModel__orderCount`
FROM orders AS `orders`
LEFT JOIN customers AS `customers`
  ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
LEFT JOIN nations AS `nations`
  ON `customers`.nation_id = `nations`.nation_id
LEFT JOIN regions AS `regions`
  ON `nations`.region_id = `regions`.region_id
GROUP BY
  `regions`.region_name
ORDER BY
  `customer.nation.region.RegionsModel__region` ASC NULLS LAST
