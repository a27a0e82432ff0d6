WITH `f0` AS (
  SELECT
    `products`.category AS `g0`,
    SUM(
      `order_items`.quantity * `order_items`.unit_price * (
        1 - COALESCE(`order_items`.discount, 0)
      )
    ) AS `a0`
  FROM order_items AS `order_items`
  LEFT JOIN products AS `products`
    ON `order_items`.product_id = `products`.product_id
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
  LEFT JOIN customers AS `customers`
    ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
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
    `metric_6b0d1667`.`OrdersModel__orderCount` >= 5 AND `orders`.channel = 'web'
  GROUP BY
    `products`.category
), `f1` AS (
  SELECT
    `dedup`.`g0` AS `g0`,
    COUNT(`dedup`.`i1`) AS `a1`
  FROM (
    SELECT DISTINCT
      `orders`.order_id AS `__pk0`,
      `products`.category AS `g0`,
      `orders`.order_id AS `i1`
    FROM orders AS `orders`
    LEFT JOIN order_items AS `order_items`
      ON `order_items`.order_id = `orders`.order_id
    LEFT JOIN products AS `products`
      ON `order_items`.product_id = `products`.product_id
    LEFT JOIN customers AS `customers`
      ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
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
      `metric_6b0d1667`.`OrdersModel__orderCount` >= 5 AND `orders`.channel = 'web'
  ) AS `dedup`
  GROUP BY
    `dedup`.`g0`
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
  `m`.`g0` AS `ProductsModel__category`,
  `m`.`a0` AS `OrderItemsModel__revenue`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `ProductsModel__category` ASC NULLS LAST
