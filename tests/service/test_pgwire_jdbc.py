"""pgJDBC (Debian's libpostgresql-jdbc-java, /usr/share/java/postgresql.jar) against the live listener.

A small Java program (pg_jdbc/SqlApiClient.java) is compiled by the test with the JDK and run: it lists
tables and columns through DatabaseMetaData, runs a grouped query and a prepared one six times (past
pgJDBC's prepareThreshold of 5: a named server-side statement with binary transfer), and reads SQLSTATEs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.service.pgwire_support import ADMIN_KEY, PgService, assert_same_rows, pg_service, rest_rows  # noqa: F401

JAR = Path("/usr/share/java/postgresql.jar")
SOURCE = Path(__file__).parent / "pg_jdbc" / "SqlApiClient.java"


def _compiled(tmp_path: Path) -> Path:
    if not (JAR.exists() and shutil.which("javac") and shutil.which("java")):
        if os.environ.get("CI"):
            pytest.fail("the JDK and libpostgresql-jdbc-java are needed for the JDBC test in CI (.ci/run installs them)")
        pytest.skip("javac or /usr/share/java/postgresql.jar missing")
    subprocess.run(["javac", "-cp", str(JAR), "-d", str(tmp_path), str(SOURCE)], check=True, capture_output=True,
                   timeout=180)
    return tmp_path


def _cells(text: str) -> list[list[str]]:
    return [row.split(",") for row in text.split(";") if row]


def test_pgjdbc(pg_service: PgService, client: object, tmp_path: Path) -> None:
    classes = _compiled(tmp_path)
    done = subprocess.run(["java", "-cp", f"{JAR}:{classes}", "SqlApiClient", str(pg_service.port), ADMIN_KEY],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = dict(line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line)
    assert out["product"].startswith("PostgreSQL 15")
    assert set(out["tables"].split(",")) >= {"OrdersModel", "OrderItemsModel", "PaymentsModel"}
    columns = dict(c.split(":") for c in out["columns"].split(","))
    assert columns["orderCount"] == "int8" and columns["orderDate"] == "date" and columns["channel"] == "text"
    grouped = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                                 "order_by": ["OrdersModel__channel"]})["rows"]
    assert_same_rows([[c, int(n)] for c, n in _cells(out["grouped"])], grouped)
    quarterly = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__quarter"],
                                   "filters": ["OrdersModel__status = 'delivered'", "OrdersModel__orderDate >= '2024-01-01'"],
                                   "order_by": ["OrdersModel__orderDate__quarter"]})["rows"]
    assert len(quarterly) == 4
    for run in range(6):
        assert_same_rows([[q, int(n)] for q, n in _cells(out[f"prepared{run}"])], quarterly)
    small = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "filters": ["OrdersModel__orderId < 100"]})["rows"]
    assert_same_rows([[int(n)] for (n,) in _cells(out["int_param"])], small)
    assert out["unknown_column"].startswith("42703") and '"channel"' in out["unknown_column"]
    assert out["write"].startswith("25006")
    assert out["wrong_key"] == "28P01"
