"""Fixtures of the service tests: a models folder of real layers, a keys file, and a running app.

Layers (all copies of semantic_models/shop, pointed at databases built for the test session):
  shop      the demo on DuckDB (built into tmp, never into the repo)
  other     the same, under another name: the "database B" of isolation tests
  nofile    a DuckDB layer whose file does not exist (backend unavailable)
  broken    a layer that never loads (database invalid)
  shop_pg   the demo on the local PostgreSQL server (only when it is reachable)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import DEMO_MODELS, PG_DSN, ROOT

warnings.filterwarnings("ignore", message=".*httpx2.*")  # starlette's TestClient deprecation note

from fastapi.testclient import TestClient  # noqa: E402

from service.app import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402

PG_SCHEMA = "smq_service_test"

KEYS: dict[str, dict[str, Any]] = {
    "admin-key": {"name": "admin", "databases": ["*"], "admin": True},
    "all-key": {"name": "all", "databases": ["*"]},
    "shop-key": {"name": "shop-only", "databases": ["shop"]},
    "other-key": {"name": "other-only", "databases": ["other"]},
    "de-key": {"name": "de", "databases": ["shop", "shop_pg"], "role": "de_analyst"},
    "ghost-key": {"name": "ghost", "databases": ["shop"], "role": "ghost"},
}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_client(folder: Path, packages: tuple[str, ...], purpose: str) -> Path:
    """`folder`, its node_modules holding `packages` (npm ci from the committed lockfile); without Node, the test
    fails in CI and is skipped elsewhere."""
    if not (shutil.which("node") and shutil.which("npm")):
        if os.environ.get("CI"):
            pytest.fail(f"node and npm are needed for {purpose} in CI")
        pytest.skip(f"node/npm not installed: {purpose} cannot run")
    if not all((folder / "node_modules" / p).exists() for p in packages):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=folder, check=True, capture_output=True, timeout=600)
    return folder


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def copy_layer(target: Path, name: str, connection: dict[str, Any], dialect: str = "duckdb") -> Path:
    """A copy of the demo layer with its own name and connection."""
    shutil.copytree(DEMO_MODELS / "shop", target, ignore=shutil.ignore_patterns("data"))
    config = yaml.safe_load((target / "database.yml").read_text(encoding="utf-8"))
    config.update(name=name, dialect=dialect, connection=connection)
    (target / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return target


def write_keys(path: Path) -> Path:
    entries = [{**entry, "sha256": hashlib.sha256(key.encode()).hexdigest()} for key, entry in KEYS.items()]
    path.write_text(yaml.safe_dump({"keys": entries}, sort_keys=False), encoding="utf-8")
    return path


def _postgres_ready() -> bool:
    try:
        import psycopg

        from smq_db.demo.build import load_into
    except ImportError:
        return False
    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        return False
    with conn:
        load_into(conn, "postgres", schema=PG_SCHEMA)
    return True


@pytest.fixture(scope="session")
def pg_available() -> bool:
    return _postgres_ready()


@pytest.fixture(scope="session")
def served_duckdb(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path]) -> Path:
    """The service's own copy of the demo file: DuckDB refuses a second in-process connection to a file
    with another configuration, and the engine tests keep `demo_files` open with theirs."""
    return Path(shutil.copy(demo_files["duckdb"], tmp_path_factory.mktemp("served") / "shop.duckdb"))


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory, served_duckdb: Path, pg_available: bool) -> Path:
    root = tmp_path_factory.mktemp("models")
    duck = {"backend": "duckdb", "path": str(served_duckdb)}
    copy_layer(root / "shop", "shop", duck)
    copy_layer(root / "other", "other", duck)
    copy_layer(root / "nofile", "nofile", {"backend": "duckdb", "path": "data/missing.duckdb"})
    broken = copy_layer(root / "broken", "broken", duck)
    (broken / "models" / "orders.yml").write_text("name: OrdersModel\ntable: orders\nmeasures:\n  - name: n\n    agg: bogus\n")
    if pg_available:
        copy_layer(root / "shop_pg", "shop_pg", {"backend": "postgres", "host": "127.0.0.1", "user": "postgres",
                                                 "database": "test", "schema": PG_SCHEMA}, dialect="postgres")
    return root


@pytest.fixture(scope="session")
def keys_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_keys(tmp_path_factory.mktemp("keys") / "keys.yml")


@pytest.fixture(scope="session")
def client(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, max_rows=1000, query_timeout_s=20))
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def duck(demo_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A copy of the demo DuckDB file opened directly: the ground truth the service's answers are checked
    against (a copy, because DuckDB refuses a second in-process connection with another configuration)."""
    import duckdb

    path = shutil.copy(demo_files["duckdb"], tmp_path_factory.mktemp("truth") / "shop.duckdb")
    conn = duckdb.connect(str(path), read_only=True)
    yield lambda sql: conn.cursor().execute(sql).fetchall()
    conn.close()


@contextlib.contextmanager
def running_service(*args: str, env: dict[str, str] | None = None,
                    ready: Callable[[subprocess.Popen], bool] = lambda server: True) -> Iterator[str]:
    """`smq serve ARGS` on a free loopback port, as deployed; yields its base URL once /v1/health answers
    (and `ready(process)` holds), stops it afterwards. SMQ_* variables of the test run are not inherited."""
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SMQ_")}
    command = [sys.executable, "-m", "smq_cli.main", "serve", "--port", str(port), "--log-level", "warning", *args]
    server = subprocess.Popen(command, env={**clean, **(env or {})}, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                if httpx.get(f"{base}/v1/health", timeout=2).status_code == 200 and ready(server):
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, server.stderr.read() if server.stderr else "the service exited"
            assert time.monotonic() < deadline, f"the service did not start: {' '.join(args)}"
            time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
