SELECT
  `customers`.segment AS `CustomersModel__segment`,
  `nations`.nation_name AS `NationsModel__country`
FROM customers AS `customers`
LEFT JOIN nations AS `nations`
  ON `customers`.nation_id = `nations`.nation_id
LEFT JOIN regions AS `regions`
  ON `nations`.region_id = `regions`.region_id
WHERE
  `regions`.region_name = 'Europe'
GROUP BY
  `customers`.segment,
  `nations`.nation_name
ORDER BY
  `CustomersModel__segment` ASC NULLS LAST,
  `NationsModel__country` ASC NULLS LAST
