"""The shop's semantic layer (semantic_models/shop) agrees with the spec's format and with the demo data.

These checks read the YAML directly and run every expression on the demo data in DuckDB, so they hold
whatever the engine's own loader does; the engine's validator must accept this layer too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot
import yaml
from sqlglot import exp

from smq_db.demo.build import load_into
from smq_db.demo.generate import generate, get_table

LAYER = Path(__file__).resolve().parents[3] / "semantic_models" / "shop"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CAMEL = re.compile(r"[a-z][a-zA-Z0-9]*")
DIMENSION_TYPES = {"string", "number", "boolean", "date", "timestamp"}
AGGS = {"sum", "count", "count_distinct", "avg", "min", "max"}
GRAINS = {"day", "week", "month", "quarter", "year"}
DUCKDB_TYPES = {"VARCHAR": "string", "BOOLEAN": "boolean", "DATE": "date", "TIMESTAMP": "timestamp"}

MODELS_EXPECTED = {
    "RegionsModel", "NationsModel", "CustomersModel", "SuppliersModel", "ProductsModel",
    "OrdersModel", "OrderItemsModel", "PaymentsModel",
}


class Yaml12Loader(yaml.SafeLoader):
    """YAML 1.2 booleans: only true/false. PyYAML follows YAML 1.1, where the spec's `on:` key is True."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def load(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Yaml12Loader)  # noqa: S506 - a SafeLoader subclass


DATABASE = load(LAYER / "database.yml")
JOINS = load(LAYER / "joins.yml")["joins"]
MODELS = {m["name"]: m for m in (load(p) for p in sorted((LAYER / "models").glob("*.yml")))}
TABLES = {t.name: t for t in generate()}
ELEMENTS = {f"{m}__{e['name']}": (m, kind, e) for m, model in MODELS.items() for kind in ("dimensions", "measures") for e in model.get(kind, [])}
METRICS = {mt["name"]: (m, mt) for m, model in MODELS.items() for mt in model.get("metrics", [])}


@pytest.fixture(scope="module")
def duck() -> Iterator[Any]:
    import duckdb

    con = duckdb.connect()
    load_into(con, "duckdb")
    yield con
    con.close()


def columns_of(sql: str) -> set[str]:
    return {c.name for c in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Column)}


def duck_kind(duck: Any, sql: str) -> str:
    (column_type,) = [row[1] for row in duck.execute(f"DESCRIBE {sql}").fetchall()]
    if column_type in DUCKDB_TYPES:
        return DUCKDB_TYPES[column_type]
    if re.fullmatch(r"(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|DOUBLE|FLOAT|DECIMAL\(\d+,\d+\))", column_type):
        return "number"
    raise AssertionError(f"unexpected type {column_type} for {sql}")


def test_one_file_per_model_in_the_spec_format() -> None:
    assert set(MODELS) == MODELS_EXPECTED
    assert len(list((LAYER / "models").glob("*.yml"))) == len(MODELS)
    for name, model in MODELS.items():
        # the spec's keys, and default_time_dimension (docs/semantic-layer.md: the model's metric_time, for docs/smq.md)
        assert set(model) <= {"name", "description", "table", "primary_key", "dimensions", "measures", "metrics",
                              "default_time_dimension"}, name
        assert NAME.fullmatch(name) and "__" not in name
        assert model["table"] in TABLES, name
        assert len(model["description"]) > 40, name
        pk = model["primary_key"] if isinstance(model["primary_key"], list) else [model["primary_key"]]
        assert list(TABLES[model["table"]].primary_key) == pk, name
        names = [e["name"] for kind in ("dimensions", "measures") for e in model.get(kind, [])]
        assert len(names) == len(set(names)), name
        assert model.get("measures"), name
    assert MODELS["OrderItemsModel"]["primary_key"] == ["order_id", "line_number"]


def test_dimensions_are_typed_described_and_run_on_their_table(duck: Any) -> None:
    for name, model in MODELS.items():
        table = TABLES[model["table"]]
        for d in model.get("dimensions", []):
            where = f"{name}__{d['name']}"
            assert set(d) == {"name", "type", "description", "expr"}, where
            assert CAMEL.fullmatch(d["name"]), where
            assert d["type"] in DIMENSION_TYPES, where
            assert len(d["description"]) > 20 and d["description"].lower().rstrip(".") != d["name"].lower(), where
            assert columns_of(d["expr"]) <= set(table.column_names), where
            assert duck_kind(duck, f"SELECT {d['expr']} AS v FROM {table.name}") == d["type"], where


def test_measures_aggregate_their_own_table(duck: Any) -> None:
    for name, model in MODELS.items():
        table = TABLES[model["table"]]
        for m in model["measures"]:
            where = f"{name}__{m['name']}"
            assert set(m) <= {"name", "agg", "expr", "description", "format"} and CAMEL.fullmatch(m["name"]), where
            assert m.get("agg", "sum") in AGGS, where
            assert len(m["description"]) > 15, where
            assert columns_of(m["expr"]) <= set(table.column_names), where
            agg = m.get("agg", "sum")
            call = f"COUNT(DISTINCT {m['expr']})" if agg == "count_distinct" else f"{agg.upper()}({m['expr']})"
            assert duck.execute(f"SELECT {call} FROM {table.name}").fetchone()[0] is not None, where


def test_required_elements_exist() -> None:
    for element in [
        "OrdersModel__orderDate", "OrdersModel__status", "OrdersModel__channel", "OrdersModel__shippedAt",
        "OrdersModel__isShipped", "OrdersModel__orderCount", "OrdersModel__customerCount",
        "OrderItemsModel__revenue", "OrderItemsModel__grossRevenue", "OrderItemsModel__unitsSold",
        "OrderItemsModel__lineCount", "OrderItemsModel__averageUnitPrice", "PaymentsModel__amountPaid",
        "PaymentsModel__paymentCount", "PaymentsModel__method", "PaymentsModel__paidAt",
        "CustomersModel__segment", "CustomersModel__signupDate", "CustomersModel__customerCode",
        "CustomersModel__customerName", "NationsModel__country",
    ]:
        assert element in ELEMENTS, element
    assert ELEMENTS["OrdersModel__customerCount"][2]["agg"] == "count_distinct"
    assert ELEMENTS["OrderItemsModel__averageUnitPrice"][2]["agg"] == "avg"
    for metric in [
        "averageOrderValue", "shippedOrderCount", "cardPayments", "unpaidRevenue", "revenuePerUnit",
        "cumulativeRevenue", "revenueLast7Days", "revenueMonthToDate", "ordersYearToDate",
    ]:
        assert metric in METRICS, metric


def referenced_names(sql: str) -> set[str]:
    return {c.name for c in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Column)}


def many_to_one_targets(model: str) -> dict[str, str]:
    """key -> model for the edges walked forward (many_to_one) from a model."""
    return {j["key"]: j["to"] for j in JOINS if j["from"] == model and j["relationship"] == "many_to_one"}


def reachable_many_to_one(model: str) -> set[str]:
    seen, todo = {model}, [model]
    while todo:
        for target in many_to_one_targets(todo.pop()).values():
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_metrics_refer_to_existing_elements() -> None:
    names = set(ELEMENTS) | set(METRICS)
    # no metric is named like a dimension or measure: an agent reading bare names is never misled
    assert not set(METRICS) & {e.split("__")[1] for e in ELEMENTS}
    for metric, (model, m) in METRICS.items():
        assert CAMEL.fullmatch(metric) and len(m["description"]) > 20, metric
        kind = m["type"]
        if kind == "simple":
            assert set(m) <= {"name", "type", "measure", "filters", "description", "format"}
            assert m["measure"] in ELEMENTS and ELEMENTS[m["measure"]][1] == "measures", metric
            for f in m.get("filters", []):
                refs = referenced_names(f)
                assert refs and all(r in ELEMENTS and ELEMENTS[r][1] == "dimensions" for r in refs), (metric, f)
        elif kind == "ratio":
            assert set(m) - {"format"} == {"name", "type", "numerator", "denominator", "description"}
            assert m["numerator"] in names and m["denominator"] in names, metric
        elif kind == "derived":
            assert set(m) - {"format"} == {"name", "type", "expr", "description"}
            refs = referenced_names(m["expr"])
            assert len(refs) >= 2 and refs <= names, metric
        elif kind == "cumulative":
            assert set(m) <= {"name", "type", "measure", "time_dimension", "window", "grain_to_date", "description", "format"}
            assert not ("window" in m and "grain_to_date" in m), metric
            measure_model, element_kind, _ = ELEMENTS[m["measure"]]
            assert element_kind == "measures", metric
            time_model, time_kind, time_dim = ELEMENTS[m["time_dimension"]]
            assert time_kind == "dimensions" and time_dim["type"] in ("date", "timestamp"), metric
            assert time_model in reachable_many_to_one(measure_model), metric
            if "window" in m:
                assert re.fullmatch(r"\d+ (day|week|month|quarter|year)s?", m["window"]), metric
            if "grain_to_date" in m:
                assert m["grain_to_date"] in GRAINS, metric
        else:
            raise AssertionError(f"{metric}: unknown metric type {kind}")
    assert METRICS["revenueLast7Days"][1]["window"] == "7 days"
    assert METRICS["revenueMonthToDate"][1]["grain_to_date"] == "month"
    assert METRICS["ordersYearToDate"][1]["grain_to_date"] == "year"
    assert "window" not in METRICS["cumulativeRevenue"][1] and "grain_to_date" not in METRICS["cumulativeRevenue"][1]


def test_filters_of_metrics_match_real_values(duck: Any) -> None:
    # a filter on a value the data never has would silently give zero
    assert duck.execute("SELECT COUNT(*) FROM orders WHERE TRIM(status) = 'shipped'").fetchone()[0] > 100
    assert duck.execute("SELECT COUNT(*) FROM orders WHERE TRIM(status) = 'returned'").fetchone()[0] > 100
    assert duck.execute("SELECT COUNT(*) FROM payments WHERE method = 'card'").fetchone()[0] > 1000


def test_joins_are_well_formed_and_keys_are_unique_per_model(duck: Any) -> None:
    touching: dict[str, list[str]] = {m: [] for m in MODELS}
    for j in JOINS:
        assert set(j) <= {"from", "to", "key", "relationship", "type", "on", "preferred"}, j
        assert j["from"] in MODELS and j["to"] in MODELS, j
        assert j["relationship"] == "many_to_one" and j.get("type", "left") in ("left", "inner"), j
        assert re.fullmatch(r"[a-z][a-z0-9_]*", j["key"]), j
        left_table, right_table = MODELS[j["from"]]["table"], MODELS[j["to"]]["table"]
        assert columns_of(j["on"]["left"]) <= set(TABLES[left_table].column_names), j
        assert columns_of(j["on"]["right"]) <= set(TABLES[right_table].column_names), j
        # many_to_one: the right side is a key of its table
        total, distinct = duck.execute(f"SELECT COUNT(*), COUNT(DISTINCT {j['on']['right']}) FROM {right_table}").fetchone()
        assert total == distinct, j
        # almost every row with a key finds its match (the orders' dirty key included, once cleaned)
        matched, with_key = duck.execute(
            f"SELECT COUNT(r.k), COUNT(l.k) FROM (SELECT {j['on']['left']} AS k FROM {left_table}) AS l "
            f"LEFT JOIN (SELECT {j['on']['right']} AS k FROM {right_table}) AS r ON l.k = r.k"
        ).fetchone()
        assert matched / with_key >= 0.98, j
        touching[j["from"]].append(j["key"])
        touching[j["to"]].append(j["key"])
    for model, keys in touching.items():
        duplicated = {k for k in keys if keys.count(k) > 1}
        assert duplicated == ({"nation"} if model == "NationsModel" else set()), model


def test_the_dirty_key_needs_cleaning(duck: Any) -> None:
    (edge,) = [j for j in JOINS if j["key"] == "customer"]
    assert edge["type"] == "left" and edge["on"] == {"left": "UPPER(TRIM(customer_ref))", "right": "customer_code"}
    raw, cleaned, orders = duck.execute(
        "SELECT COUNT(c1.customer_id), COUNT(c2.customer_id), COUNT(*) FROM orders AS o "
        "LEFT JOIN customers AS c1 ON o.customer_ref = c1.customer_code "
        "LEFT JOIN customers AS c2 ON UPPER(TRIM(o.customer_ref)) = c2.customer_code"
    ).fetchone()
    assert orders == len(get_table("orders").rows)
    assert raw < 0.9 * orders and 0.98 * orders <= cleaned < orders


def test_nation_is_role_playing_from_order_lines() -> None:
    def paths(model: str, target: str, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        if model == target:
            return [prefix]
        return [p for key, nxt in many_to_one_targets(model).items() for p in paths(nxt, target, prefix + (key,))]

    assert sorted(".".join(p) for p in paths("OrderItemsModel", "NationsModel")) == [
        "order.customer.nation",
        "product.supplier.nation",
    ]
    assert sorted(".".join(p) for p in paths("OrderItemsModel", "RegionsModel")) == [
        "order.customer.nation.region",
        "product.supplier.nation.region",
    ]
    assert [".".join(p) for p in paths("PaymentsModel", "NationsModel")] == ["paid_order.customer.nation"]
    assert [".".join(p) for p in paths("OrdersModel", "NationsModel")] == ["customer.nation"]


def test_database_yml_time_spine_and_access(duck: Any) -> None:
    assert set(DATABASE) <= {"name", "description", "dialect", "connection", "time_spine", "access"}
    assert len(DATABASE["description"]) > 80
    spine = DATABASE["time_spine"]
    assert spine["column"] in TABLES[spine["table"]].column_names
    role = DATABASE["access"]["roles"]["de_analyst"]
    for f in role["row_filters"]:
        refs = referenced_names(f)
        assert refs and all(ELEMENTS[r][1] == "dimensions" for r in refs), f
    assert all(h in ELEMENTS for h in role["hidden"])
    assert role["row_filters"] == ["NationsModel__country = 'Germany'"]
    german = duck.execute(
        "SELECT COUNT(*) FROM customers AS c JOIN nations AS n ON c.nation_id = n.nation_id WHERE n.nation_name = 'Germany'"
    ).fetchone()[0]
    assert german >= 50
