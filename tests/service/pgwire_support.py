"""The live listener the SQL API's client tests talk to, and the `/query` answers they are compared with.

`pg_service` is a real `smq serve --api-keys ... --pg-port P` subprocess on free loopback ports over the
test models folder (tests/service/conftest.py: `shop` on DuckDB, keys with and without a role);
`open_pg_service` is `smq serve --open --pg-port P` over the same folder. `rest_rows` runs the equivalent
SMQ on the in-process REST app (`client`), the numbers every client's answer must equal.
"""

from __future__ import annotations

import contextlib
import math
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import auth, free_port, running_service

ADMIN_KEY = "admin-key"  # tests/service/conftest.py KEYS
DE_KEY = "de-key"  # role de_analyst: Germany only, CustomersModel__customerName hidden
SHOP_KEY = "shop-key"


def _pg_ready(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@dataclass(frozen=True)
class PgService:
    http: str
    port: int
    host: str = "127.0.0.1"

    def dsn(self, key: str | None = None, database: str = "shop", user: str = "analyst") -> str:
        password = f" password={key}" if key else ""
        return f"host={self.host} port={self.port} dbname={database} user={user}{password} sslmode=prefer"

    def url(self, key: str | None = None, database: str = "shop", driver: str = "postgresql+psycopg") -> str:
        secret = f":{key}" if key else ""
        return f"{driver}://analyst{secret}@{self.host}:{self.port}/{database}"


@contextlib.contextmanager
def serving(*args: str) -> Iterator[PgService]:
    port = free_port()
    with running_service(*args, "--pg-port", str(port), ready=lambda _: _pg_ready(port)) as base:
        yield PgService(base, port)


@pytest.fixture(scope="session")
def pg_service(models_dir: Path, keys_file: Path) -> Iterator[PgService]:
    with serving("--models-dir", str(models_dir), "--api-keys", str(keys_file), "--max-rows", "1000") as service:
        yield service


@pytest.fixture(scope="session")
def open_pg_service(models_dir: Path) -> Iterator[PgService]:
    with serving("--models-dir", str(models_dir), "--open", "--max-rows", "1000") as service:
        yield service


def rest_rows(client: Any, smq: dict[str, Any], key: str = ADMIN_KEY, db: str = "shop", **extra: Any) -> dict[str, Any]:
    """`/query`'s answer for an SMQ on the in-process REST app."""
    response = client.post(f"/v1/databases/{db}/query", json={"smq": smq, **extra}, headers=auth(key))
    assert response.status_code == 200, response.text
    return response.json()


def same_number(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return str(a) == str(b)


def assert_same_rows(got: list[list[Any]], expected: list[list[Any]]) -> None:
    """Row for row, numbers equal within float precision, everything else as text (a date is its ISO text)."""
    assert len(got) == len(expected), (got[:5], expected[:5])
    for g, e in zip(got, expected):
        assert len(g) == len(e), (g, e)
        for a, b in zip(g, e):
            assert same_number(_plain(a), _plain(b)), (g, e)


def _plain(value: Any) -> Any:
    from decimal import Decimal

    if isinstance(value, Decimal):
        return float(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def wait_until(predicate: Any, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
