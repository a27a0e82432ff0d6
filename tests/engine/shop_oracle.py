"""An oracle for SMQs on the demo `shop`, written from the data model, not from the compiler.

It reads the rows of the demo tables and computes, in plain Python, what a metric means
(semantic-layer.md): each measure aggregates its own model's rows; a row belongs to every group
(and passes the filters) if at least one of the rows it joins to puts it there, and then counts
once in that group; a simple metric's filter selects rows before aggregating (as MetricFlow and plain
SQL do), so its metric has a group only where some row passes it; ratio and derived metrics combine
their inputs per group, NULL when an input is NULL (or missing) or a denominator 0.

The join graph is written out by hand below (every edge of joins.yml, walked from each model),
so a planner or renderer bug cannot cancel itself out the way a compiler-vs-compiler check can.
Only the vocabulary of test_properties.py is known here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]
Runner = Callable[[str], tuple[list[str], list[tuple]]]


def _trim(value: str | None) -> str | None:
    return None if value is None else value.strip(" ")


def _grain(day: str | None, grain: str) -> str | None:
    if day is None:
        return None
    year, month = int(day[:4]), int(day[5:7])
    if grain == "month":
        return f"{year:04d}-{month:02d}-01"
    if grain == "quarter":
        return f"{year:04d}-{3 * ((month - 1) // 3) + 1:02d}-01"
    return f"{year:04d}-01-01"


@dataclass(frozen=True)
class Context:
    """One combination of joined rows around a fact row (None where a left join found nothing)."""
    order: Row | None
    item: Row | None
    payment: Row | None
    customer: Row | None
    product: Row | None
    nation: Row | None


def _order_value(name: str) -> Callable[[Context], Any]:
    return lambda c: None if c.order is None else c.order[name]


# dimension name -> its value in a context
DIMENSIONS: dict[str, Callable[[Context], Any]] = {
    "OrdersModel__status": lambda c: None if c.order is None else _trim(c.order["status"]),
    "OrdersModel__channel": _order_value("channel"),
    "OrdersModel__orderDate__month": lambda c: _grain(_order_value("order_date")(c), "month"),
    "OrdersModel__orderDate__quarter": lambda c: _grain(_order_value("order_date")(c), "quarter"),
    "OrdersModel__orderDate__year": lambda c: _grain(_order_value("order_date")(c), "year"),
    "OrdersModel__isShipped": lambda c: None if c.order is None else int(c.order["shipped_at"] is not None),
    "CustomersModel__segment": lambda c: None if c.customer is None else c.customer["segment"],
    "ProductsModel__category": lambda c: None if c.product is None else c.product["category"],
    "PaymentsModel__method": lambda c: None if c.payment is None else c.payment["method"],
    # the country of the order's customer (from CustomersModel: the customer's own)
    "order.customer.nation.NationsModel__country": lambda c: None if c.nation is None else c.nation["nation_name"],
}

# filter text -> does a context satisfy it (NULL never does)
FILTERS: dict[str, Callable[[Context], bool]] = {
    "OrdersModel__channel = 'web'": lambda c: c.order is not None and c.order["channel"] == "web",
    "OrdersModel__orderDate >= '2024-01-01'": lambda c: c.order is not None and c.order["order_date"] >= "2024-01-01",
    "CustomersModel__segment IS NOT NULL": lambda c: c.customer is not None and c.customer["segment"] is not None,
    "ProductsModel__category IN ('toys', 'books')": lambda c: c.product is not None and c.product["category"] in ("toys", "books"),
}


@dataclass(frozen=True)
class Measure:
    model: str
    agg: str  # sum, count, count_distinct, avg, min
    value: Callable[[Row], Any]  # the row's input (None is ignored, as SQL aggregates do)
    passes: Callable[[Row], bool] | None = None  # a metric's own filter: the rows it aggregates


def _revenue(item: Row) -> float:
    return item["quantity"] * item["unit_price"] * (1 - (item["discount"] or 0))


MEASURES: dict[str, Measure] = {
    "OrdersModel__orderCount": Measure("orders", "count", lambda o: o["order_id"]),
    "OrdersModel__customerCount": Measure("orders", "count_distinct", lambda o: _trim(o["customer_ref"]).upper() if o["customer_ref"] else None),
    "OrdersModel__firstOrderDate": Measure("orders", "min", lambda o: o["order_date"]),
    "shippedOrderCount": Measure("orders", "count", lambda o: o["order_id"], lambda o: _trim(o["status"]) == "shipped"),
    "returnedOrderCount": Measure("orders", "count", lambda o: o["order_id"], lambda o: _trim(o["status"]) == "returned"),
    "OrderItemsModel__revenue": Measure("items", "sum", _revenue),
    "OrderItemsModel__unitsSold": Measure("items", "sum", lambda i: i["quantity"]),
    "OrderItemsModel__averageUnitPrice": Measure("items", "avg", lambda i: i["unit_price"]),
    "PaymentsModel__amountPaid": Measure("payments", "sum", lambda p: p["amount"]),
    "PaymentsModel__paymentCount": Measure("payments", "count", lambda p: p["payment_id"]),
    "cardPayments": Measure("payments", "sum", lambda p: p["amount"], lambda p: p["method"] == "card"),
    "ProductsModel__productCount": Measure("products", "count", lambda p: p["product_id"]),
    "CustomersModel__customerCount": Measure("customers", "count", lambda c: c["customer_id"]),
}


def _divide(a: Any, b: Any) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


# metric name -> (its measures, how a group's measure values combine)
COMBINED: dict[str, tuple[tuple[str, ...], Callable[..., Any]]] = {
    "averageOrderValue": (("OrderItemsModel__revenue", "OrdersModel__orderCount"), _divide),
    "returnRate": (("returnedOrderCount", "OrdersModel__orderCount"), _divide),
    "revenuePerUnit": (("OrderItemsModel__revenue", "OrderItemsModel__unitsSold"), _divide),
    "unpaidRevenue": (("OrderItemsModel__revenue", "PaymentsModel__amountPaid"),
                      lambda r, p: None if r is None or p is None else r - p),
}


def _aggregate(agg: str, values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    if agg == "count":
        return len(present)
    if agg == "count_distinct":
        return len(set(present))
    if not present:
        return None
    if agg == "sum":
        return sum(present)
    if agg == "avg":
        return sum(present) / len(present)
    return min(present)


class ShopOracle:
    def __init__(self, run: Runner) -> None:
        def table(name: str) -> list[Row]:
            columns, rows = run(f"SELECT * FROM {name}")
            return [dict(zip(columns, row)) for row in rows]

        self.rows = {name: table(table_name) for name, table_name in
                     [("orders", "orders"), ("items", "order_items"), ("payments", "payments"),
                      ("products", "products"), ("customers", "customers")]}
        nations = {n["nation_id"]: n for n in table("nations")}
        customer_by_code = {c["customer_code"]: c for c in self.rows["customers"]}
        product = {p["product_id"]: p for p in self.rows["products"]}
        order = {o["order_id"]: o for o in self.rows["orders"]}
        items_of: dict[Any, list[Row]] = defaultdict(list)
        for i in self.rows["items"]:
            items_of[i["order_id"]].append(i)
        payments_of: dict[Any, list[Row]] = defaultdict(list)
        for p in self.rows["payments"]:
            payments_of[p["order_id"]].append(p)
        items_of_product: dict[Any, list[Row]] = defaultdict(list)
        for i in self.rows["items"]:
            items_of_product[i["product_id"]].append(i)
        orders_of_customer: dict[Any, list[Row]] = defaultdict(list)

        def customer_of(o: Row | None) -> Row | None:  # the dirty reference, cleaned
            ref = None if o is None else o["customer_ref"]
            return None if ref is None else customer_by_code.get(_trim(ref).upper())

        for o in self.rows["orders"]:
            if (c := customer_of(o)) is not None:
                orders_of_customer[c["customer_code"]].append(o)

        def around_order(o: Row | None, items: Iterable[Row | None] | None = None,
                         customer: Row | None = None) -> Iterable[Context]:
            c = customer if customer is not None else customer_of(o)
            nation = None if c is None else nations.get(c["nation_id"])
            chosen = items if items is not None else (items_of[o["order_id"]] if o is not None else []) or [None]
            for i in chosen:
                for p in (payments_of[o["order_id"]] if o is not None else []) or [None]:
                    yield Context(o, i, p, c, None if i is None else product.get(i["product_id"]), nation)

        # fact model -> [(fact row index, context)], every fan-out expanded (left joins: None when empty)
        self.contexts: dict[str, list[tuple[int, Context]]] = {
            "orders": [(n, c) for n, o in enumerate(self.rows["orders"]) for c in around_order(o)],
            "items": [(n, c) for n, i in enumerate(self.rows["items"]) for c in around_order(order.get(i["order_id"]), [i])],
            "payments": [(n, ctx) for n, p in enumerate(self.rows["payments"])
                         for ctx in around_order(order.get(p["order_id"])) if ctx.payment is p],
            "products": [(n, ctx) for n, pr in enumerate(self.rows["products"])
                         for i in items_of_product[pr["product_id"]] or [None]
                         for ctx in (around_order(order.get(i["order_id"]), [i]) if i is not None
                                     else [Context(None, None, None, None, pr, None)])],
            "customers": [(n, ctx) for n, cu in enumerate(self.rows["customers"])
                          for o in orders_of_customer[cu["customer_code"]] or [None]
                          for ctx in (around_order(o, customer=cu) if o is not None
                                      else [Context(None, None, None, cu, None, nations.get(cu["nation_id"]))])],
        }

    def _groups(self, model: str, group_by: list[str], filters: list[str]) -> dict[tuple, set[int]]:
        """group key -> the fact rows in it: a row is in every group one of its contexts puts it in."""
        keys = [DIMENSIONS[d] for d in group_by]
        tests = [FILTERS[f] for f in filters]
        groups: dict[tuple, set[int]] = defaultdict(set)
        for n, ctx in self.contexts[model]:
            if all(t(ctx) for t in tests):
                groups[tuple(k(ctx) for k in keys)].add(n)
        if not group_by:
            groups.setdefault((), set())  # no group_by: one row, even when nothing passes the filters
        return groups

    def answer(self, smq: dict) -> dict[tuple, tuple]:
        """group key -> the metrics' values, for every group some metric's model has rows in."""
        group_by, filters = smq.get("group_by", []), smq.get("filters", [])
        needed = {m for metric in smq["metrics"] for m in COMBINED.get(metric, ((metric,), None))[0]}
        values: dict[str, dict[tuple, Any]] = {}
        for name in needed:
            measure = MEASURES[name]
            rows = self.rows[measure.model]
            groups = self._groups(measure.model, group_by, filters)
            if measure.passes is not None:  # filtered before aggregating: groups without a passing row vanish
                groups = {key: {n for n in members if measure.passes(rows[n])} for key, members in groups.items()}
                groups = {key: members for key, members in groups.items() if members or not group_by}
            values[name] = {key: _aggregate(measure.agg, [measure.value(rows[n]) for n in members])
                            for key, members in groups.items()}
        all_keys = {key for per_key in values.values() for key in per_key}
        out = {}
        for key in all_keys:
            row = []
            for metric in smq["metrics"]:
                inputs, combine = COMBINED.get(metric, ((metric,), None))
                args = [values[i].get(key) for i in inputs]
                row.append(args[0] if combine is None else combine(*args))
            out[key] = tuple(row)
        return out
