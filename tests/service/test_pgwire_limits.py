"""The SQL API is bounded like every other path: the key's quota, SMQ_MAX_ROWS, and `smq serve`'s checks of its port."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import psycopg
import pytest

from tests.conftest import ROOT
from tests.service.conftest import running_service
from tests.service.pgwire_support import ADMIN_KEY, PgService, free_port, pg_service  # noqa: F401

SLOW = "SELECT count(*) FROM pg_catalog.pg_attribute a, generate_series(1, 4000000000) g"


def test_max_rows_cuts_with_a_notice(pg_service: PgService) -> None:
    notices: list[str] = []
    with psycopg.connect(pg_service.dsn(ADMIN_KEY), autocommit=True) as conn:
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        rows = conn.execute('SELECT "orderId" FROM "OrdersModel" ORDER BY 1').fetchall()
        page = conn.execute('SELECT "orderId" FROM "OrdersModel" ORDER BY 1 LIMIT 10 OFFSET 995').fetchall()
    assert len(rows) == 1000  # --max-rows 1000
    assert any("cut at 1,000 rows" in n for n in notices)
    assert len(page) == 10 and page[:5] == rows[995:]  # a page asked for past the cap is the SMQ's page


def test_a_key_over_its_quota_is_refused_53300(pg_service: PgService) -> None:
    """SMQ_MAX_INFLIGHT_PER_KEY (8): with 8 of the key's statements running, a 9th is refused at once."""
    busy = [psycopg.connect(pg_service.dsn(ADMIN_KEY), autocommit=True) for _ in range(8)]
    errors: list[BaseException] = []

    def slow(conn: psycopg.Connection) -> None:
        try:
            conn.execute(SLOW)
        except psycopg.Error as err:
            errors.append(err)

    threads = [threading.Thread(target=slow, args=(c,)) for c in busy]
    for t in threads:
        t.start()
    refused = None
    try:
        with psycopg.connect(pg_service.dsn(ADMIN_KEY), autocommit=True) as probe:
            deadline = time.monotonic() + 30
            while refused is None and time.monotonic() < deadline:
                try:
                    probe.execute("SELECT 1")
                    time.sleep(0.1)
                except psycopg.Error as err:
                    refused = err
        with psycopg.connect(pg_service.dsn("all-key"), autocommit=True) as other:  # another key is not held up
            assert other.execute("SELECT 1").fetchone() == (1,)
    finally:
        for conn in busy:
            conn.cancel()
        for t in threads:
            t.join(60)
        for conn in busy:
            conn.close()
    assert refused is not None and refused.sqlstate == "53300", refused
    assert "SMQ_MAX_INFLIGHT_PER_KEY" in str(refused)
    assert all(getattr(e, "sqlstate", None) == "57014" for e in errors) and len(errors) == 8


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smq_cli.main", "serve", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_serve_refuses_pg_port_with_several_workers_and_a_busy_port() -> None:
    done = _serve("--open", "--port", str(free_port()), "--pg-port", str(free_port()), "--workers", "2")
    assert done.returncode == 2 and "--workers 1" in done.stderr
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = _serve("--open", "--port", str(free_port()), "--pg-port", str(taken.getsockname()[1]))
    assert done.returncode == 2 and "PostgreSQL protocol" in done.stderr and "--pg-port" in done.stderr
    done = _serve("--open", "--host", "0.0.0.0", "--port", str(free_port()), "--pg-port", str(free_port()))
    assert done.returncode == 2 and "refusing to serve without keys" in done.stderr


def test_smq_pg_port_from_the_environment(models_dir: object) -> None:
    port = free_port()
    with running_service("--models-dir", str(models_dir), "--open", env={"SMQ_PG_PORT": str(port)}):
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(f"host=127.0.0.1 port={port} dbname=shop user=x", autocommit=True) as conn:
                    assert conn.execute('SELECT MEASURE("orderCount") FROM "OrdersModel"').fetchone()[0] == 5000
                    break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


@pytest.mark.parametrize("sql", ["COPY (SELECT 1) TO STDOUT", "PREPARE p AS SELECT 1", "FETCH 10 FROM c"])
def test_protocol_features_not_offered(pg_service: PgService, sql: str) -> None:
    with psycopg.connect(pg_service.dsn(ADMIN_KEY), autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as err:
            conn.execute(sql)
        assert err.value.sqlstate in ("0A000", "25006")
