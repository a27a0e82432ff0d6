SELECT
  `semi`.`g0` AS `OrdersModel__channel`,
  COUNT(`semi`.`i0`) AS `OrdersModel__ordersOnCustomerLastDay`,
  COUNT(`semi`.`i1`) AS `OrdersModel__orderCount`
FROM (
  SELECT
    `orders`.channel AS `g0`,
    CASE
      WHEN CAST(`orders`.order_date AS DATE) = MAX(CAST(`orders`.order_date AS DATE)) OVER (PARTITION BY UPPER(TRIM(`orders`.customer_ref)))
      THEN `orders`.order_id
    END AS `i0`,
    `orders`.order_id AS `i1`
  FROM orders AS `orders`
) AS `semi`
GROUP BY
  `semi`.`g0`
ORDER BY
  `OrdersModel__channel` ASC NULLS LAST
