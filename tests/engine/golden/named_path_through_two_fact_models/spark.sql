WITH `f0` AS (
  SELECT
    `nations`.nation_name AS `g0`,
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
  LEFT JOIN nations AS `nations`
    ON `customers`.nation_id = `nations`.nation_id
  GROUP BY
    `nations`.nation_name
), `f1` AS (
  SELECT
    `nations`.nation_name AS `g0`,
    COUNT(`orders`.order_id) AS `a1`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers`
    ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
  LEFT JOIN nations AS `nations`
    ON `customers`.nation_id = `nations`.nation_id
  GROUP BY
    `nations`.nation_name
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
  `m`.`g0` AS `order.customer.nation.NationsModel__country`,
  CAST(`m`.`a0` AS DOUBLE) / NULLIF(`m`.`a1`, 0) AS `averageOrderValue`,
  `m`.`a1` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `order.customer.nation.NationsModel__country` ASC NULLS LAST
