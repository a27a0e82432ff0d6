"""URLs, names and quoting: the small rules everything else relies on."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.layer.exprs import parse_expression
from smq_authoring.names import column_sql, element_name, model_name, singular, table_sql
from smq_authoring.urls import UrlError, parse_url


def test_urls(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"")
    spec = parse_url(f"sqlite:///{db}")
    assert spec.backend == "sqlite" and spec.path == db
    spec = parse_url("postgresql://ann:s3cret@db.example:6543/sales?schema=mart")
    assert (spec.backend, spec.host, spec.port, spec.user, spec.password, spec.database, spec.schema) == \
        ("postgres", "db.example", 6543, "ann", "s3cret", "sales", "mart")
    connection = spec.yaml_connection(tmp_path, "sales")
    assert connection["password"] == "${SMQ_SALES_PASSWORD}" and "s3cret" not in str(connection)
    assert parse_url("mariadb://root@127.0.0.1/shop").port == 3306
    assert parse_url("postgres://u@h/d").schema == "public"
    for bad in ("oracle://x/y", "sqlite://relative.db", f"sqlite:///{tmp_path / 'missing.db'}", "mysql://root@host:3306/"):
        with pytest.raises(UrlError):
            parse_url(bad)


def test_names() -> None:
    assert model_name("order_items") == "OrderItemsModel" and model_name("Order Details") == "OrderDetailsModel"
    assert model_name("2019_sales") == "T2019SalesModel"
    assert element_name("Song_release_year") == "songReleaseYear" and element_name("CustomerID") == "customerId"
    assert element_name("2nd line") == "n2ndLine" and "__" not in element_name("a__b")
    assert [singular(w) for w in ("categories", "addresses", "statuses", "movies", "people", "status")] == \
        ["category", "address", "status", "movie", "person", "status"]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql"])
def test_quoting_round_trips(dialect: str) -> None:
    for name in ("order", "Order Date", "CustomerId", "select", "2x", "a.b", "plain", "key"):
        node = parse_expression(column_sql(name, dialect), dialect)
        assert node.name == name, (dialect, name)
    assert column_sql("plain", dialect) == "plain"
    assert table_sql("Order Details", dialect) in ('"Order Details"', "`Order Details`")
    assert (column_sql("CustomerId", dialect) == '"CustomerId"') == (dialect == "postgres")


def test_cli_init_exit_codes(cli, tmp_path: Path, shop_db: Path) -> None:
    assert cli("init", "--from", "oracle://x/y", "--db", "x", "--out", tmp_path / "x")[0] == 2
    assert cli("init", "--from", f"sqlite:///{shop_db}", "--db", "bad__name", "--out", tmp_path / "x")[0] == 2
    assert cli("init", "--from", "postgresql://nobody@127.0.0.1:1/none", "--db", "x", "--out", tmp_path / "x")[0] == 2
    code, out, err = cli("init", "--from", f"sqlite:///{shop_db}", "--db", "shop", "--models-dir", tmp_path / "m")
    assert code == 0 and "wrote" in out and "inferred order_lines(order_id) -> orders(order_id)" in out
    assert "[1/9]" in err  # progress on stderr
    code, out, _ = cli("init", "--from", f"sqlite:///{shop_db}", "--db", "shop", "--models-dir", tmp_path / "m")
    assert code == 0 and "updated" in out and "files rewritten: none" in out
    assert cli("validate", "--models-dir", tmp_path / "m")[0] == 0


def test_empty_database_and_views(cli, tmp_path: Path) -> None:
    import sqlite3

    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    code, out, _ = cli("init", "--from", f"sqlite:///{empty}", "--db", "nothing", "--models-dir", tmp_path / "m")
    assert code == 0 and "0 models" in out
    views = tmp_path / "views.sqlite"
    conn = sqlite3.connect(views)
    conn.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, t_code TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');"
                       "CREATE VIEW v AS SELECT * FROM t;")
    conn.close()
    code, out, _ = cli("init", "--from", f"sqlite:///{views}", "--db", "views", "--models-dir", tmp_path / "m")
    assert code == 0 and "-> v(" not in out  # a view repeats its table's columns: nothing is inferred to reference it
    assert cli("validate", "--models-dir", tmp_path / "m")[0] == 0


def test_exact_numbers_keep_their_declared_scale_in_value_lists(tmp_path: Path) -> None:
    """Executors return DECIMAL(4,2) values as JSON numbers (0.1); descriptions show them as declared (0.10)."""
    import duckdb

    from smq_authoring import init_layer
    from smq_authoring.profile import exact_value

    path = tmp_path / "d.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE items (item_id INTEGER PRIMARY KEY, discount DECIMAL(4, 2), qty INTEGER)")
    conn.execute("INSERT INTO items VALUES (1, 0.10, 1), (2, 0.05, 2), (3, 0.10, 1), (4, 0.50, 3)")
    conn.close()
    result = init_layer(f"duckdb:///{path}", "d", tmp_path / "d")
    discount = result.catalog.table("items").column("discount")
    assert [str(v) for v, _ in discount.values] == ["0.10", "0.05", "0.50"]
    assert "Values: 0.05, 0.10, 0.50." in (tmp_path / "d" / "models" / "items.yml").read_text()
    assert [str(v) for v, _ in result.catalog.table("items").column("qty").values] == ["1", "2", "3"]
    assert exact_value(True, "decimal(1,0)") is True and exact_value("x", "NUMERIC(5,2)") == "x"
