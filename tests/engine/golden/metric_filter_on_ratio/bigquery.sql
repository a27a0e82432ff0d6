SELECT
  `customers`.segment AS `CustomersModel__segment`,
  COUNT(`customers`.customer_id) AS `CustomersModel__customerCount`
FROM customers AS `customers`
LEFT JOIN (
  WITH `f0` AS (
    SELECT
      `customers`.customer_code AS `g0`,
      SUM(
        `order_items`.quantity * `order_items`.unit_price * (
          1 - COALESCE(`order_items`.discount, 0)
        )
      ) AS `a0`
    FROM order_items AS `order_items`
    LEFT JOIN orders AS `orders`
      ON `order_items`.order_id = `orders`.order_id
    LEFT JOIN customers AS `customers`
      ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
    GROUP BY
      `customers`.customer_code
  ), `f1` AS (
    SELECT
      `customers`.customer_code AS `g0`,
      COUNT(`orders`.order_id) AS `a1`
    FROM orders AS `orders`
    LEFT JOIN customers AS `customers`
      ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
    GROUP BY
      `customers`.customer_code
  ), `merged` AS (
    SELECT
      `g0`,
      MAX(`a0`) AS `a0`,
      MAX(`a1`) AS `a1`
    FROM (
      SELECT
        `g0`,
        `a0`,
        NULL AS `a1`
      FROM `f0`
      UNION ALL
      SELECT
        `g0`,
        NULL AS `a0`,
        `a1`
      FROM `f1`
    ) AS `stacked`
    GROUP BY
      `g0`
  )
  SELECT
    `m`.`g0` AS `CustomersModel__customerCode`,
    CAST(`m`.`a0` AS FLOAT64) / NULLIF(`m`.`a1`, 0) AS `averageOrderValue`
  FROM `merged` AS `m`
) AS `metric_e89a747b`
  ON `customers`.customer_code = `metric_e89a747b`.`CustomersModel__customerCode`
WHERE
  `metric_e89a747b`.`averageOrderValue` > 300
GROUP BY
  `CustomersModel__segment`
ORDER BY
  `CustomersModel__segment` ASC NULLS LAST
