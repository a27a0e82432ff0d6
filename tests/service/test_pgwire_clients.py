"""psql and SQLAlchemy 2 (its inspector, and pandas.read_sql) against the live listener; numbers equal `/query`'s."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.service.pgwire_support import ADMIN_KEY, DE_KEY, PgService, assert_same_rows, open_pg_service, pg_service, rest_rows  # noqa: F401

CHANNELS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
            "order_by": ["OrdersModel__channel"]}


def psql(service: PgService, *commands: str, key: str | None = ADMIN_KEY, database: str = "shop") -> subprocess.CompletedProcess:
    if shutil.which("psql") is None:
        pytest.fail("psql is not installed (Debian postgresql-client; .ci/run installs it)")
    args = ["psql", "-X", "-h", service.host, "-p", str(service.port), "-U", "analyst", "-d", database, "-A", "-F", "|",
            "-v", "ON_ERROR_STOP=1"]
    for command in commands:
        args += ["-c", command]
    env = {**os.environ, "PGPASSWORD": key or "", "PGSSLMODE": "prefer", "PGCONNECT_TIMEOUT": "10"}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def test_psql_lists_describes_and_queries(pg_service: PgService, client: object) -> None:
    done = psql(pg_service, r"\dt", r'\d "OrdersModel"', r'\d+ "NationsModel"',
                'SELECT channel, MEASURE("orderCount") FROM "OrdersModel" GROUP BY 1 ORDER BY 1')
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "public|OrdersModel|table|" in out and "public|OrderItemsModel|table|" in out
    assert "channel|text" in out and "orderDate|date" in out and "orderCount|bigint" in out
    assert "NationsModel__country|text" in out and "averageOrderValue|double precision" in out
    assert "Country name in English" in out  # \d+ shows the dimension's description
    rows = [line.split("|") for line in out.splitlines()[-4:-1]]
    expected = rest_rows(client, CHANNELS)["rows"]
    assert_same_rows([[r[0], int(r[1])] for r in rows], expected)


def test_psql_under_a_role_and_its_refusals(pg_service: PgService) -> None:
    done = psql(pg_service, r'\d "OrdersModel"', key=DE_KEY)
    assert done.returncode == 0 and "customerName" not in done.stdout and "CustomersModel__segment" in done.stdout
    wrong = psql(pg_service, "SELECT 1", key="wrong-key")
    assert wrong.returncode != 0 and "password authentication failed" in wrong.stderr
    write = psql(pg_service, 'UPDATE "OrdersModel" SET channel = \'x\'')
    assert write.returncode != 0 and "read-only" in write.stderr
    unknown = psql(pg_service, 'SELECT "channell" FROM "OrdersModel"')
    assert unknown.returncode != 0 and 'did you mean "channel"' in unknown.stderr


def test_psql_sslmode_require_is_told_no_tls(pg_service: PgService) -> None:
    env_done = subprocess.run(["psql", "-X", f"host={pg_service.host} port={pg_service.port} dbname=shop user=a "
                               f"password={ADMIN_KEY} sslmode=require", "-c", "SELECT 1"],
                              capture_output=True, text=True, timeout=60)
    assert env_done.returncode != 0 and "SSL" in env_done.stderr


def test_sqlalchemy_inspector_and_pandas(pg_service: PgService, client: object) -> None:
    import pandas as pd
    import sqlalchemy as sa

    engine = sa.create_engine(pg_service.url(ADMIN_KEY))
    try:
        inspector = sa.inspect(engine)
        assert "public" in inspector.get_schema_names()
        assert set(inspector.get_table_names()) >= {"OrdersModel", "OrderItemsModel", "CustomersModel"}
        columns = {c["name"]: c for c in inspector.get_columns("OrdersModel")}
        assert isinstance(columns["orderCount"]["type"], sa.BigInteger)
        assert isinstance(columns["orderDate"]["type"], sa.Date)
        assert isinstance(columns["channel"]["type"], sa.Text)
        assert "web" in (columns["channel"]["comment"] or "")
        assert inspector.get_pk_constraint("OrdersModel")["constrained_columns"] == []
        assert inspector.get_foreign_keys("OrdersModel") == [] and inspector.get_indexes("OrdersModel") == []
        assert inspector.has_table("OrdersModel") and not inspector.has_table("Nope")
        with engine.connect() as conn:
            frame = pd.read_sql('SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" '
                                "GROUP BY 1 ORDER BY 1", conn)
            one = pd.read_sql(sa.text('SELECT MEASURE("orderCount") AS orders FROM "OrdersModel" '
                                      "WHERE channel = :channel AND \"orderDate\" >= :since"), conn,
                              params={"channel": "web", "since": "2024-01-01"})
    finally:
        engine.dispose()
    assert_same_rows(frame.values.tolist(), rest_rows(client, CHANNELS)["rows"])
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "filters": [
        "OrdersModel__channel = 'web'", "OrdersModel__orderDate >= '2024-01-01'"]})["rows"]
    assert_same_rows(one.values.tolist(), expected)


def test_sqlalchemy_inspector_under_a_role(pg_service: PgService) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(pg_service.url(DE_KEY))
    try:
        names = [c["name"] for c in sa.inspect(engine).get_columns("CustomersModel")]
    finally:
        engine.dispose()
    assert "customerName" not in names and "segment" in names
