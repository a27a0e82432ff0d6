WITH `f0` AS (
  SELECT
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
), `f1` AS (
  SELECT
    SUM(
      `order_items`.quantity * `order_items`.unit_price * (
        1 - COALESCE(`order_items`.discount, 0)
      )
    ) AS `a1`
  FROM order_items AS `order_items`
), `f2` AS (
  SELECT
    SUM(`payments`.amount) AS `a2`
  FROM payments AS `payments`
), `merged` AS (
  SELECT
    MAX(`a0`) AS `a0`,
    MAX(`a1`) AS `a1`,
    MAX(`a2`) AS `a2`
  FROM (
    SELECT
      `a0`,
      NULL AS `a1`,
      NULL AS `a2`
    FROM `f0`
    UNION ALL
    SELECT
      NULL AS `a0`,
      `a1`,
      NULL AS `a2`
    FROM `f1`
    UNION ALL
    SELECT
      NULL AS `a0`,
      NULL AS `a1`,
      `a2`
    FROM `f2`
  ) AS `stacked`
)
SELECT
  `m`.`a0` AS `OrdersModel__orderCount`,
  `m`.`a1` AS `OrderItemsModel__revenue`,
  `m`.`a2` AS `PaymentsModel__amountPaid`
FROM `merged` AS `m`
