WITH `f0` AS (
  SELECT
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE) AS `g0`,
    SUM(
      `order_items`.quantity * `order_items`.unit_price * (
        1 - COALESCE(`order_items`.discount, 0)
      )
    ) AS `a0`
  FROM order_items AS `order_items`
  LEFT JOIN orders AS `orders`
    ON `order_items`.order_id = `orders`.order_id
  GROUP BY
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE)
), `f1` AS (
  SELECT
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE) AS `g0`,
    SUM(`payments`.amount) AS `a1`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
  GROUP BY
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE)
), `f2` AS (
  SELECT
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE) AS `g0`,
    COUNT(`orders`.order_id) AS `a2`
  FROM orders AS `orders`
  GROUP BY
    CAST(DATE_TRUNC('month', `orders`.order_date) AS DATE)
), `merged` AS (
  SELECT
    `g0`,
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`,
    MAX(`a2`) AS `a2`
  FROM (
    SELECT
      `g0`,
      `a0`,
      NULL AS `a1`,
      NULL AS `a2`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`,
      NULL AS `a2`
    FROM `f1`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      NULL AS `a1`,
      `a2`
    FROM `f2`
  ) AS `stacked`
  GROUP BY
    `g0`
)
SELECT
  `m`.`g0` AS `OrdersModel__orderDate__month`,
  `m`.`a0` AS `OrderItemsModel__revenue`,
  `m`.`a1` AS `PaymentsModel__amountPaid`,
  `m`.`a2` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
ORDER BY
  `OrdersModel__orderDate__month` ASC NULLS LAST
