"""The demo database "shop": deterministic, holding its traps, and the same on every engine."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from smq_db.demo import build
from smq_db.demo.build import build_duckdb, build_sqlite, ensure_demo, load_into
from smq_db.demo.generate import AS_OF, CLOSED_DAYS, FIRST_ORDER_DATE, LAST_ORDER_DATE, Table, _generate, generate, get_table

ROOT = Path(__file__).resolve().parents[3]
PG_DSN = os.environ.get("SMQ_TEST_PG", "host=127.0.0.1 port=5432 user=postgres dbname=test")
MYSQL = dict(host=os.environ.get("SMQ_TEST_MYSQL_HOST", "127.0.0.1"), port=3306, user="root", password="")
# our own schema (PostgreSQL) / database (MariaDB), per process: test runs on one machine may overlap
TEST_SCHEMA = f"smq_demo_test_{os.getpid()}"

TABLE_ORDER = ["regions", "nations", "customers", "suppliers", "products", "orders", "order_items", "payments", "time_spine"]
PY_TYPES = {"INTEGER": int, "VARCHAR": str, "DATE": dt.date, "TIMESTAMP": dt.datetime, "BOOLEAN": bool}


def tables() -> dict[str, Table]:
    return {t.name: t for t in generate()}


def digest(ts: list[Table]) -> str:
    return hashlib.sha256(repr([(t.name, t.columns, t.primary_key, t.rows) for t in ts]).encode()).hexdigest()


def clean_ref(ref: str) -> str:
    return ref.strip().upper()


# --------------------------------------------------------------------------------------------
# determinism and shape


def test_generate_is_deterministic_and_cached() -> None:
    first = generate()
    assert generate() == first and generate()[0] is first[0]  # cached
    assert generate() is not first  # callers get their own list
    assert list(_generate.__wrapped__()) == first  # a fresh run gives the same rows


def test_generate_is_identical_in_another_process() -> None:
    # another interpreter, another hash seed: the rows must not depend on either
    code = (
        "import hashlib; from smq_db.demo.generate import generate; "
        "print(hashlib.sha256(repr([(t.name, t.columns, t.primary_key, t.rows) for t in generate()]).encode()).hexdigest())"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == digest(generate())


def test_tables_in_dependency_order_with_expected_sizes() -> None:
    ts = generate()
    assert [t.name for t in ts] == TABLE_ORDER
    sizes = {t.name: len(t.rows) for t in ts}
    assert sizes["regions"] == 5
    assert 14 <= sizes["nations"] <= 16
    assert 550 <= sizes["customers"] <= 650
    assert 35 <= sizes["suppliers"] <= 45
    assert 100 <= sizes["products"] <= 140
    assert 4500 <= sizes["orders"] <= 5500
    assert 12_000 <= sizes["order_items"] <= 18_000
    assert 4_000 <= sizes["payments"] <= 7_000
    assert sizes["time_spine"] == (dt.date(2026, 12, 31) - dt.date(2022, 1, 1)).days + 1


# words reserved in one of the engines the demo is loaded into (besides those sqlglot knows), and a
# few non-reserved keywords that invite quoting trouble
RESERVED = {
    "all", "and", "any", "as", "between", "by", "case", "cast", "check", "column", "connect", "connection",
    "constraint", "create", "cross", "current", "database", "date", "delete", "distinct", "drop", "else",
    "exists", "false", "following", "for", "from", "full", "grant", "group", "having", "in", "increment",
    "inner", "insert", "intersect", "into", "is", "join", "lateral", "left", "like", "limit", "minus",
    "natural", "not", "null", "of", "on", "or", "order", "qualify", "regexp", "revoke", "right", "rlike",
    "row", "rows", "sample", "schema", "select", "set", "some", "start", "table", "tablesample", "then",
    "timestamp", "to", "trigger", "true", "union", "unique", "update", "user", "using", "values", "view",
    "when", "whenever", "where", "with", "window", "name", "time", "day", "month", "year", "key", "value",
}


def test_identifiers_are_lowercase_unquoted_and_not_reserved() -> None:
    from sqlglot.dialects.dialect import Dialect

    reserved = set(RESERVED)
    for d in ("duckdb", "mysql", "bigquery", "postgres", "snowflake", "sqlite"):
        reserved |= {w.lower() for w in getattr(Dialect.get_or_raise(d).generator_class, "RESERVED_KEYWORDS", ())}
    for t in generate():
        for name in (t.name, *t.column_names):
            assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name
            assert name not in reserved, f"{t.name}.{name} is a reserved word"


def test_values_match_column_types_and_keys_are_unique_and_sorted() -> None:
    for t in generate():
        assert set(t.primary_key) <= set(t.column_names)
        for row in t.rows:
            assert len(row) == len(t.columns)
            for value, (column, sql_type) in zip(row, t.columns):
                if value is None:
                    assert column not in t.primary_key, (t.name, column)
                    continue
                if sql_type.startswith("DECIMAL"):
                    scale = int(re.search(r",\s*(\d+)\)", sql_type).group(1))
                    assert isinstance(value, Decimal) and value.as_tuple().exponent == -scale, (t.name, column, value)
                elif sql_type == "DATE":
                    assert type(value) is dt.date, (t.name, column, value)
                elif sql_type == "TIMESTAMP":
                    assert type(value) is dt.datetime and value.microsecond == 0 and value.tzinfo is None
                elif sql_type == "INTEGER":
                    assert type(value) is int, (t.name, column, value)
                else:
                    assert isinstance(value, PY_TYPES[sql_type]), (t.name, column, value)
                if isinstance(value, str):
                    assert value.isascii(), (t.name, column, value)
        pk = [tuple(row[t.column_names.index(c)] for c in t.primary_key) for row in t.rows]
        assert pk == sorted(pk) and len(set(pk)) == len(pk), t.name


def test_references_resolve() -> None:
    ts = tables()
    ids = lambda name, col: set(ts[name].column(col))  # noqa: E731
    assert set(ts["nations"].column("region_id")) <= ids("regions", "region_id")
    assert set(ts["customers"].column("nation_id")) - {None} <= ids("nations", "nation_id")
    assert set(ts["suppliers"].column("nation_id")) <= ids("nations", "nation_id")
    assert set(ts["products"].column("supplier_id")) <= ids("suppliers", "supplier_id")
    assert set(ts["order_items"].column("order_id")) == ids("orders", "order_id")  # every order has lines
    assert set(ts["order_items"].column("product_id")) <= ids("products", "product_id")
    assert set(ts["payments"].column("order_id")) <= ids("orders", "order_id")
    codes = ts["customers"].column("customer_code")
    assert len(set(codes)) == len(codes) and all(re.fullmatch(r"C\d{5}", c) for c in codes)
    # ids in distinct ranges: a join on the wrong key finds nothing
    assert ids("orders", "order_id").isdisjoint(ids("products", "product_id") | ids("payments", "payment_id"))


# --------------------------------------------------------------------------------------------
# the traps


def test_dirty_customer_reference() -> None:
    ts = tables()
    codes = set(ts["customers"].column("customer_code"))
    refs = ts["orders"].column("customer_ref")
    n = len(refs)
    exact = sum(r in codes for r in refs)
    dirty_but_matching = sum(r not in codes and clean_ref(r) in codes for r in refs)
    unmatched = [r for r in refs if clean_ref(r) not in codes]
    assert 0.80 <= exact / n <= 0.88
    assert 0.12 <= dirty_but_matching / n <= 0.18
    assert 0.005 <= len(unmatched) / n <= 0.02
    assert any(r != r.strip() for r in refs) and any(r.strip() != r.strip().upper() for r in refs)
    assert any(r.startswith(" ") and r.endswith(" ") and r.strip().islower() for r in refs)  # ' c00042 '
    assert all(r is not None for r in refs)
    # joining on the raw column loses far more orders than the 1% that truly match no customer
    assert (n - len(unmatched)) - exact > 0.1 * n


def test_nulls_where_promised() -> None:
    ts = tables()

    def null_share(table: str, column: str) -> float:
        values = ts[table].column(column)
        return sum(v is None for v in values) / len(values)

    assert 0.02 <= null_share("customers", "nation_id") <= 0.04
    assert 0.04 <= null_share("customers", "segment") <= 0.06
    assert 0.015 <= null_share("orders", "status") <= 0.025
    assert 0 < null_share("products", "category") <= 0.05
    assert 0.3 <= null_share("order_items", "discount") <= 0.8
    assert {s for s in ts["customers"].column("segment") if s} == {"consumer", "corporate", "small_business"}
    assert len({c for c in ts["products"].column("category") if c}) == 6
    assert Decimal("0.00") in ts["order_items"].column("discount")  # a zero discount is not a NULL one


def test_status_needs_trimming_and_shipping_matches_status() -> None:
    orders = get_table("orders")
    statuses = orders.column("status")
    assert {s.strip() for s in statuses if s} == {"shipped", "delivered", "pending", "cancelled", "returned"}
    assert any(s != s.strip() for s in statuses if s)
    assert {c for c in orders.column("channel")} == {"web", "mobile", "store"}
    for _, _, order_date, status, _, shipped_at in orders.rows:
        s = status.strip() if status else None
        if s in ("pending", "cancelled"):
            assert shipped_at is None
        elif s is not None:
            assert shipped_at is not None
        if shipped_at is not None:
            assert order_date <= shipped_at.date() and shipped_at <= AS_OF


def test_orders_fan_out_to_several_items_and_several_payments() -> None:
    ts = tables()
    lines = Counter(ts["order_items"].column("order_id"))
    pays = Counter(ts["payments"].column("order_id"))
    assert set(lines.values()) == {1, 2, 3, 4, 5, 6}
    assert set(pays.values()) == {1, 2, 3}
    n_orders = len(ts["orders"].rows)
    assert 0.05 <= (n_orders - len(pays)) / n_orders <= 0.2  # orders without payment
    both = [o for o in pays if pays[o] >= 2 and lines[o] >= 2]
    assert len(both) >= 100  # a join of lines and payments multiplies each side by the other
    # the trap for real: summing payments after joining order lines inflates the total
    true_paid = sum(ts["payments"].column("amount"))
    naive = sum(amount * lines[order_id] for _, order_id, _, amount, _ in ts["payments"].rows)
    assert naive > Decimal("2") * true_paid
    assert set(ts["payments"].column("method")) == {"card", "paypal", "bank_transfer", "gift_card"}


def test_payments_never_exceed_what_was_bought() -> None:
    ts = tables()
    revenue: dict[int, Decimal] = defaultdict(Decimal)
    for order_id, _, _, quantity, unit_price, discount in ts["order_items"].rows:
        revenue[order_id] += quantity * unit_price * (1 - (discount or 0))
    paid: dict[int, Decimal] = defaultdict(Decimal)
    order_dates = {r[0]: r[2] for r in ts["orders"].rows}
    for _, order_id, paid_at, amount, _ in ts["payments"].rows:
        assert amount > 0
        assert order_dates[order_id] <= paid_at.date() and paid_at <= AS_OF
        paid[order_id] += amount
    due = {o: r.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) for o, r in revenue.items()}
    fully = sum(paid[o] == due[o] for o in paid)
    assert all(paid[o] <= due[o] for o in paid)
    assert fully / len(paid) > 0.95  # a few split payments were never completed


def test_two_full_years_with_seasonality_and_empty_days() -> None:
    dates = get_table("orders").column("order_date")
    assert min(dates) == FIRST_ORDER_DATE == dt.date(2023, 1, 1)
    assert max(dates) == LAST_ORDER_DATE == dt.date(2024, 12, 31)
    per_day = Counter(dates)
    every_day = [FIRST_ORDER_DATE + dt.timedelta(days=i) for i in range((LAST_ORDER_DATE - FIRST_ORDER_DATE).days + 1)]
    empty = {d for d in every_day if d not in per_day}
    assert CLOSED_DAYS <= empty and 5 <= len(empty) <= 30
    weeks_with_orders = {d.isocalendar()[:2] for d in dates}
    assert (2024, 6) not in weeks_with_orders  # the whole ISO week 2024-02-05 .. 2024-02-11
    months = Counter((d.year, d.month) for d in dates)
    assert len(months) == 24
    for year in (2023, 2024):  # seasonality: December is busier than February
        assert months[(year, 12)] > 1.5 * months[(year, 2)]
    assert sum(v for (y, _), v in months.items() if y == 2024) > sum(v for (y, _), v in months.items() if y == 2023)


def test_time_spine_is_contiguous_and_covers_the_orders() -> None:
    days = get_table("time_spine").column("date_day")
    assert days[0] == dt.date(2022, 1, 1) and days[-1] == dt.date(2026, 12, 31)
    assert all((b - a).days == 1 for a, b in zip(days, days[1:]))


def test_role_playing_nations_and_unreferenced_rows() -> None:
    ts = tables()
    nation_names = dict(zip(ts["nations"].column("nation_id"), ts["nations"].column("nation_name")))
    customer_nations = set(ts["customers"].column("nation_id")) - {None}
    supplier_nations = set(ts["suppliers"].column("nation_id"))
    assert len(customer_nations & supplier_nations) >= 4  # shared: 'nation' is role-playing
    assert supplier_nations - customer_nations  # suppliers' countries differ from customers'
    assert set(nation_names) - customer_nations - supplier_nations  # a country nobody references
    assert "Germany" in {nation_names[n] for n in customer_nations & supplier_nations}
    assert set(ts["suppliers"].column("supplier_id")) - set(ts["products"].column("supplier_id"))
    sold = set(ts["order_items"].column("product_id"))
    assert set(ts["products"].column("product_id")) - sold  # products never sold
    codes = set(ts["customers"].column("customer_code"))
    assert codes - {clean_ref(r) for r in ts["orders"].column("customer_ref")}  # customers who never ordered
    assert any("'" in name for name in ts["customers"].column("customer_name"))  # literals need escaping


# --------------------------------------------------------------------------------------------
# the same rows on every engine


def normalize(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (Decimal, float)):
        return round(float(value), 6)
    return value


EXPECTED = {t.name: [tuple(normalize(v) for v in row) for row in t.rows] for t in generate()}


def assert_same_rows(fetch: Callable[[str], list[tuple]], qualify: Callable[[str], str] = lambda n: n) -> None:
    """Every table's row count, then its full content, equals the generator's."""
    for t in generate():
        (count,) = fetch(f"SELECT COUNT(*) FROM {qualify(t.name)}")[0]
        assert count == len(t.rows), t.name
    for t in generate():
        rows = fetch(f"SELECT {', '.join(t.column_names)} FROM {qualify(t.name)} ORDER BY {', '.join(t.primary_key)}")
        assert [tuple(normalize(v) for v in r) for r in rows] == EXPECTED[t.name], t.name


def test_build_duckdb_round_trip_and_idempotent(tmp_path: Path) -> None:
    import duckdb

    target = tmp_path / "nested" / "shop.duckdb"
    assert build_duckdb(target) == target
    build_duckdb(target)  # rebuilding over an existing file is fine
    assert sorted(p.name for p in target.parent.iterdir()) == ["shop.duckdb"]  # no temp files left
    con = duckdb.connect(str(target), read_only=True)
    try:
        assert_same_rows(lambda sql: con.execute(sql).fetchall())
        types = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'order_items'").fetchall())
        assert types["unit_price"] == "DECIMAL(12,2)" and types["discount"] == "DECIMAL(4,2)"
        assert con.execute("SELECT data_type FROM information_schema.columns WHERE column_name = 'shipped_at'").fetchone()[0] == "TIMESTAMP"
    finally:
        con.close()


def test_build_sqlite_round_trip_with_text_dates(tmp_path: Path) -> None:
    target = build_sqlite(tmp_path / "shop.sqlite")
    build_sqlite(target)
    assert [p.name for p in tmp_path.iterdir()] == ["shop.sqlite"]
    con = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
    try:
        assert_same_rows(lambda sql: con.execute(sql).fetchall())
        row = con.execute(
            "SELECT typeof(order_date), order_date, typeof(shipped_at), shipped_at FROM orders WHERE shipped_at IS NOT NULL ORDER BY order_id LIMIT 1"
        ).fetchone()
        assert row[0] == "text" and re.fullmatch(r"\d{4}-\d\d-\d\d", row[1])
        assert row[2] == "text" and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row[3])
        assert con.execute("SELECT typeof(unit_price), typeof(quantity) FROM order_items LIMIT 1").fetchone() == ("real", "integer")
        assert con.execute("SELECT DISTINCT typeof(is_discontinued) FROM products").fetchall() == [("integer",)]
    finally:
        con.close()


def test_load_into_duckdb_schema_and_sqlite_rejects_schema() -> None:
    import duckdb

    con = duckdb.connect()
    load_into(con, "duckdb", schema="shop")
    load_into(con, "duckdb", schema="shop")  # drop and recreate
    assert con.execute("SELECT COUNT(*) FROM shop.order_items").fetchone()[0] == len(get_table("order_items").rows)
    with pytest.raises(ValueError, match="sqlite has no schemas"):
        load_into(sqlite3.connect(":memory:"), "sqlite", schema="shop")
    with pytest.raises(ValueError, match="unknown dialect"):
        load_into(con, "oracle")


def test_ddl_is_built_per_dialect() -> None:
    pg = "\n".join(build.ddl("postgres", TEST_SCHEMA))
    assert f"CREATE SCHEMA IF NOT EXISTS {TEST_SCHEMA}" in pg and 'customer_ref VARCHAR COLLATE "C"' in pg
    my = "\n".join(build.ddl("mysql", TEST_SCHEMA))
    assert "shipped_at DATETIME" in my and "VARCHAR(255)" in my and "COLLATE=utf8mb4_nopad_bin" in my
    sf = "\n".join(build.ddl("snowflake"))
    assert "shipped_at TIMESTAMPNTZ" in sf and '"' not in sf  # unquoted: Snowflake folds names to upper case
    assert "PRIMARY KEY (order_id, line_number)" in "\n".join(build.ddl("duckdb"))


@pytest.fixture
def postgres() -> Iterator[Any]:
    psycopg = pytest.importorskip("psycopg")
    try:
        conn = psycopg.connect(PG_DSN, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN!r}: {exc}")
    try:
        yield conn
    finally:
        conn.rollback()
        conn.execute(f"DROP SCHEMA IF EXISTS {TEST_SCHEMA} CASCADE")
        conn.commit()
        conn.close()


def test_load_into_postgres(postgres: Any) -> None:
    # a leftover from an earlier run is replaced: load_into drops and recreates
    postgres.execute(f"CREATE SCHEMA IF NOT EXISTS {TEST_SCHEMA}")
    postgres.execute(f"CREATE TABLE IF NOT EXISTS {TEST_SCHEMA}.orders (leftover INT)")
    postgres.commit()
    load_into(postgres, "postgres", schema=TEST_SCHEMA)
    assert_same_rows(lambda sql: postgres.execute(sql).fetchall(), lambda name: f"{TEST_SCHEMA}.{name}")
    # byte-wise comparison and ordering, as on the other engines
    assert postgres.execute(f"SELECT COUNT(DISTINCT customer_ref) FROM {TEST_SCHEMA}.orders").fetchone()[0] == len(
        set(get_table("orders").column("customer_ref"))
    )


@pytest.fixture
def mysql() -> Iterator[Any]:
    pymysql = pytest.importorskip("pymysql")
    try:
        conn = pymysql.connect(**MYSQL, connect_timeout=3)
    except pymysql.err.OperationalError as exc:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:{MYSQL['port']}: {exc}")
    try:
        yield conn
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {TEST_SCHEMA}")
        conn.close()


def test_load_into_mysql(mysql: Any) -> None:
    def fetch(sql: str) -> list[tuple]:
        with mysql.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    fetch(f"CREATE DATABASE IF NOT EXISTS {TEST_SCHEMA}")
    fetch(f"CREATE TABLE IF NOT EXISTS {TEST_SCHEMA}.orders (leftover INT)")  # replaced by load_into
    load_into(mysql, "mysql", schema=TEST_SCHEMA)
    assert_same_rows(fetch, lambda name: f"{TEST_SCHEMA}.{name}")
    # a binary, no-pad collation: case and trailing spaces count, as on every other engine
    refs = get_table("orders").column("customer_ref")
    assert fetch(f"SELECT COUNT(DISTINCT customer_ref) FROM {TEST_SCHEMA}.orders")[0][0] == len(set(refs))
    assert fetch(f"SELECT COUNT(*) FROM {TEST_SCHEMA}.orders WHERE customer_ref = 'C00042'")[0][0] == refs.count("C00042")


@pytest.mark.parametrize("paramstyle, schema", [("pyformat", "shop"), ("qmark", None)])
def test_load_into_snowflake_emulator(paramstyle: str, schema: str | None) -> None:
    try:
        import fakesnow  # noqa: F401
        import snowflake.connector
    except ImportError as exc:  # e.g. a snowflake-connector-python release fakesnow does not support
        pytest.skip(f"fakesnow is not usable here: {exc}")
    from tests.conftest import fakesnow_patched

    with fakesnow_patched():
        # a database per case: a shared emulator (another fixture's patch) keeps what earlier cases made
        conn = snowflake.connector.connect(database=f"smq_demo_test_{paramstyle}", schema="shop", paramstyle=paramstyle)
        try:
            conn.cursor().execute("CREATE TABLE orders (leftover INT)")  # replaced by load_into
            load_into(conn, "snowflake", schema=schema)  # None: the connection's current schema

            def fetch(sql: str) -> list[tuple]:
                return list(conn.cursor().execute(sql).fetchall())

            assert_same_rows(fetch, lambda name: f"SHOP.{name.upper()}")  # unquoted names fold to upper case
        finally:
            conn.close()


# --------------------------------------------------------------------------------------------
# first use from a fresh clone


def write_layer(folder: Path, connection: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "database.yml").write_text(yaml.safe_dump({"name": "shop", "dialect": "duckdb", "connection": connection}))
    return folder


def test_ensure_demo_builds_once_and_rebuilds_when_stale(tmp_path: Path) -> None:
    layer = write_layer(tmp_path / "shop", {"backend": "duckdb", "path": "data/shop.duckdb", "demo": "shop"})
    target = layer / "data" / "shop.duckdb"
    ensure_demo(layer)
    assert target.exists() and (layer / "data" / "shop.duckdb.demo-version").read_text().strip() == build.fingerprint()
    built = target.stat().st_mtime_ns
    ensure_demo(layer)
    assert target.stat().st_mtime_ns == built  # present and current: left alone

    lite = write_layer(tmp_path / "lite", {"backend": "sqlite", "path": "shop.sqlite", "demo": "shop"})
    ensure_demo(lite)
    con = sqlite3.connect(lite / "shop.sqlite")
    assert con.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == len(get_table("orders").rows)
    con.execute("DELETE FROM orders")
    con.commit()
    con.close()
    (lite / "shop.sqlite.demo-version").write_text("made by an older generator\n")
    ensure_demo(lite)  # stale: rebuilt
    con = sqlite3.connect(lite / "shop.sqlite")
    assert con.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == len(get_table("orders").rows)
    con.close()


def test_ensure_demo_leaves_other_layers_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = write_layer(tmp_path / "plain", {"backend": "duckdb", "path": "data/other.duckdb"})
    ensure_demo(plain)
    assert not (plain / "data").exists()
    server = write_layer(tmp_path / "server", {"backend": "postgres", "demo": "shop"})
    ensure_demo(server)  # loaded with load_into, not built here
    unknown = write_layer(tmp_path / "unknown", {"backend": "duckdb", "path": "x.duckdb", "demo": "tpch"})
    with pytest.raises(ValueError, match="unknown demo"):
        ensure_demo(unknown)
    monkeypatch.setenv("SMQ_DEMO_DIR", str(tmp_path / "elsewhere"))
    env = write_layer(tmp_path / "env", {"backend": "sqlite", "path": "${SMQ_DEMO_DIR}/shop.db", "demo": "shop"})
    ensure_demo(env)
    assert (tmp_path / "elsewhere" / "shop.db").exists()


def test_the_shop_layer_points_at_the_demo() -> None:
    config = yaml.safe_load((ROOT / "semantic_models" / "shop" / "database.yml").read_text())
    assert config["name"] == "shop" and config["dialect"] == "duckdb"
    assert config["connection"] == {"backend": "duckdb", "path": "data/shop.duckdb", "demo": "shop"}
    assert config["time_spine"] == {"table": "time_spine", "column": "date_day"}
