WITH `f0` AS (
  SELECT
    `nations`.nation_name AS `g0`,
    COUNT(`orders`.order_id) AS `a0`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers`
    ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
  LEFT JOIN nations AS `nations`
    ON `customers`.nation_id = `nations`.nation_id
  GROUP BY
    `nations`.nation_name
), `f1` AS (
  SELECT
    `nations`.nation_name AS `g0`,
    SUM(`payments`.amount) AS `a1`
  FROM payments AS `payments`
  LEFT JOIN orders AS `orders`
    ON `payments`.order_id = `orders`.order_id
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
      NULL AS `a1`,
      1 AS `_listed`
    FROM `f0`
    UNION ALL
    SELECT
      `g0`,
      NULL AS `a0`,
      `a1`,
      NULL AS `_listed`
    FROM `f1`
  ) AS `stacked`
  GROUP BY
    `g0`
  HAVING
    MAX(`_listed`) = 1
)
SELECT
  `m`.`g0` AS `NationsModel__country`,
  `m`.`a0` AS `OrdersModel__orderCount`
FROM `merged` AS `m`
WHERE
  `m`.`a1` >= 90000 AND `m`.`a0` > 0
ORDER BY
  CASE WHEN `m`.`g0` IS NULL THEN 1 ELSE 0 END, `m`.`g0` ASC
