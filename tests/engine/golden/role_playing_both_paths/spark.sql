SELECT
  `nations`.nation_name AS `order.customer.nation.NationsModel__country`,
  `product_supplier_nation`.nation_name AS `product.supplier.nation.NationsModel__country`,
  SUM(
    `order_items`.quantity * `order_items`.unit_price * (
      1 - COALESCE(`order_items`.discount, 0)
    )
  ) AS `OrderItemsModel__revenue`
FROM order_items AS `order_items`
LEFT JOIN orders AS `orders`
  ON `order_items`.order_id = `orders`.order_id
LEFT JOIN customers AS `customers`
  ON UPPER(TRIM(`orders`.customer_ref)) = `customers`.customer_code
LEFT JOIN nations AS `nations`
  ON `customers`.nation_id = `nations`.nation_id
LEFT JOIN products AS `products`
  ON `order_items`.product_id = `products`.product_id
LEFT JOIN suppliers AS `suppliers`
  ON `products`.supplier_id = `suppliers`.supplier_id
LEFT JOIN nations AS `product_supplier_nation`
  ON `suppliers`.nation_id = `product_supplier_nation`.nation_id
GROUP BY
  `nations`.nation_name,
  `product_supplier_nation`.nation_name
ORDER BY
  `order.customer.nation.NationsModel__country` ASC NULLS LAST,
  `product.supplier.nation.NationsModel__country` ASC NULLS LAST
