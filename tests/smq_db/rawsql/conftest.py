"""The demo layer on each real engine, for the raw-SQL attack suites (issue 13).

DuckDB and SQLite are copies of the demo files; PostgreSQL and MariaDB get the demo loaded into a
schema/database of their own (uuid-named, dropped at the end), skipped with the reason when the
server is unreachable. Each engine also holds a view outside the layer over a hidden column, and the
layer declares, next to the demo's roles, `hidden_only`: a role that only hides an element.
"""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Layer, load_layers
from smq_db.executors import create_executor
from smq_db.executors.base import Executor
from smq_db.rawsql import RawSql, prepare_raw_sql
from tests.smq_db.executors.conftest import MYSQL, PG_DSN

SHOP = Path(__file__).resolve().parents[3] / "semantic_models" / "shop"
ENGINES = ("duckdb", "sqlite", "postgres", "mysql")
VIEW = "customer_names_view"  # outside the layer: the hidden customer_name of every customer
VIEW_SQL = f"CREATE VIEW {VIEW} AS SELECT customer_id, customer_name FROM customers"


@dataclass
class Engine:
    name: str
    layer: Layer
    executor: Executor
    admin: Any = None  # a second, writable session on server engines (MariaDB: to look at locks)

    def prepare(self, sql: str, role: str | None = None) -> RawSql:
        """What every raw-SQL path does before the executor: guard, policy, role, regeneration."""
        return prepare_raw_sql(sql, self.layer.semantic, self.layer.graph, self.layer.role(role))

    def run(self, sql: str, role: str | None = None) -> Any:
        return self.executor.execute(self.prepare(sql, role).sql, max_rows=100, timeout_s=20)


def write_layer(root: Path, name: str, dialect: str, connection: dict[str, Any]) -> Path:
    folder = root / name
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns("data"))
    config = yaml.safe_load((folder / "database.yml").read_text(encoding="utf-8"))
    config.update(name=name, dialect=dialect, connection=connection)
    config["access"]["roles"]["hidden_only"] = {"hidden": ["CustomersModel__customerName"]}
    (folder / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


@pytest.fixture(scope="session", params=ENGINES)
def engine(request: pytest.FixtureRequest, demo_files: dict[str, Path],
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    name: str = request.param
    root = tmp_path_factory.mktemp(f"rawsql_{name}")
    cleanup: list[Any] = []
    admin = None
    if name in ("duckdb", "sqlite"):
        path = Path(shutil.copy(demo_files[name], root / f"shop.{name}"))
        if name == "duckdb":
            import duckdb

            with duckdb.connect(str(path)) as conn:
                conn.execute(VIEW_SQL)
        else:
            with sqlite3.connect(path) as conn:
                conn.execute(VIEW_SQL)
        connection: dict[str, Any] = {"backend": name, "path": str(path)}
    else:
        schema = f"smq_rawsql_{uuid.uuid4().hex[:10]}"
        admin, connection = _server(name, schema)
        cleanup.append(lambda: _drop(name, admin, schema))
    write_layer(root, f"shop_{name}", name, connection)
    layer = load_layers(root)[f"shop_{name}"]
    executor = create_executor(dict(layer.semantic.connection), base_dir=layer.semantic.directory, dialect=name)
    yield Engine(name, layer, executor, admin)
    executor.close()
    for step in cleanup:
        step()


def _server(name: str, schema: str) -> tuple[Any, dict[str, Any]]:
    from smq_db.demo.build import load_into

    if name == "postgres":
        psycopg = pytest.importorskip("psycopg")
        try:
            admin = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
        except psycopg.OperationalError as error:
            pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {error}")
        load_into(admin, "postgres", schema=schema)
        admin.execute(f"SET search_path TO {schema}")
        admin.execute(VIEW_SQL)
        return admin, {"backend": "postgres", "host": "127.0.0.1", "user": "postgres", "database": "test", "schema": schema}
    pymysql = pytest.importorskip("pymysql")
    try:
        admin = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as error:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}: {error}")
    load_into(admin, "mysql", schema=schema)
    admin.select_db(schema)
    with admin.cursor() as cur:
        cur.execute(VIEW_SQL)
    return admin, {"backend": "mysql", "host": MYSQL["host"], "port": MYSQL["port"], "user": "root", "database": schema}


def _drop(name: str, admin: Any, schema: str) -> None:
    if name == "postgres":
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    else:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {schema}")
    admin.close()
