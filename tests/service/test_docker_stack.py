"""The docker-compose stack's steps, run without Docker (no engine here) against the local PostgreSQL.

What compose does, in order: `docker/load_demo.py` loads the demo into a database and creates the
read-only login; the service serves `shop_pg` from `docker/semantic_models/shop_pg/database.yml` (plus
shop's models and joins, as the Dockerfile copies them) with `docker/api_keys.example.yml`. Here the
same files run with two changes only: the host is 127.0.0.1 instead of `db`, and the database and
login carry this process's id so that concurrent runs never meet.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings
from tests.conftest import DEMO_MODELS, PG_DSN

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
ADMIN = {"Authorization": "Bearer demo-admin-key"}
DE = {"Authorization": "Bearer demo-de-key"}
BY_COUNTRY = {"metrics": ["OrdersModel__orderCount", "OrderItemsModel__revenue"],
              "group_by": ["order.customer.nation.NationsModel__country"],
              "order_by": ["order.customer.nation.NationsModel__country"]}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    psycopg = pytest.importorskip("psycopg")
    try:
        admin = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {exc}")
    database, reader = f"smq_compose_{os.getpid()}", f"smq_reader_{os.getpid()}"
    admin.execute(f'DROP DATABASE IF EXISTS "{database}"')
    admin.execute(f'CREATE DATABASE "{database}"')
    info = admin.info
    env = {**os.environ, "PGHOST": info.host, "PGPORT": str(info.port), "PGUSER": info.user, "PGDATABASE": database,
           "SMQ_PG_USER": reader, "SMQ_PG_PASSWORD": "reader-test-only", "PYTHONPATH": str(ROOT)}
    try:
        loaded = subprocess.run([sys.executable, str(DOCKER / "load_demo.py")], env=env, capture_output=True,
                                text=True, timeout=120)
        assert loaded.returncode == 0, loaded.stderr
        assert f"read-only login {reader} ready" in loaded.stdout

        models = tmp_path_factory.mktemp("compose") / "models"
        shop_pg = models / "shop_pg"
        shutil.copytree(DEMO_MODELS / "shop" / "models", shop_pg / "models")  # as docker/Dockerfile copies them
        shutil.copy(DEMO_MODELS / "shop" / "joins.yml", shop_pg / "joins.yml")
        config = yaml.safe_load((DOCKER / "semantic_models" / "shop_pg" / "database.yml").read_text(encoding="utf-8"))
        assert config["connection"]["host"] == "db"  # the compose service name; here the local server
        config["connection"].update(host=info.host, port=info.port, database=database, user=reader)
        (shop_pg / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")

        os.environ["SMQ_PG_PASSWORD"] = "reader-test-only"  # ${SMQ_PG_PASSWORD} in database.yml, as compose sets it
        app = create_app(Settings(models_dir=models, api_keys_file=DOCKER / "api_keys.example.yml"))
        with TestClient(app) as client:
            yield {"client": client, "database": database, "reader": reader, "host": info.host, "port": info.port}
    finally:
        os.environ.pop("SMQ_PG_PASSWORD", None)
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.execute(f'DROP ROLE IF EXISTS "{reader}"')
        admin.close()


def test_the_stack_serves_the_demo_from_postgres(stack: dict[str, Any], duck: Any) -> None:
    """shop_pg answers like the embedded demo: same models, same data, another engine."""
    from engine import load_layers

    client = stack["client"]
    assert client.get("/v1/ready").json()["status"] == "ready"
    served = client.post("/v1/databases/shop_pg/query", json={"smq": BY_COUNTRY}, headers=ADMIN)
    assert served.status_code == 200, served.text
    expected = duck(load_layers(DEMO_MODELS)["shop"].compile(BY_COUNTRY, dialect="duckdb"))
    rows = served.json()["rows"]
    assert [r[0] for r in rows] == [r[0] for r in expected]
    assert [r[1] for r in rows] == [r[1] for r in expected]
    assert [r[2] for r in rows] == pytest.approx([float(r[2]) for r in expected])


def test_the_demo_analyst_key_sees_germany_only(stack: dict[str, Any]) -> None:
    client = stack["client"]
    rows = client.post("/v1/databases/shop_pg/query", json={"smq": BY_COUNTRY}, headers=DE).json()["rows"]
    assert [r[0] for r in rows] == ["Germany"]
    hidden = client.post("/v1/databases/shop_pg/query", headers=DE,
                         json={"smq": {"metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__customerName"]}})
    assert hidden.status_code == 400 and hidden.headers["content-type"].startswith("application/problem+json")


def test_the_service_login_cannot_write(stack: dict[str, Any]) -> None:
    """The login load_demo.py creates is read-only on the server, whatever the service's guard does."""
    import psycopg

    with psycopg.connect(host=stack["host"], port=stack["port"], user=stack["reader"], dbname=stack["database"],
                         autocommit=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 5000  # search_path is the demo schema
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM orders")
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("CREATE TABLE stolen (x int)")


def test_the_compose_replicas_share_redis_behind_the_proxy() -> None:
    """docker-compose.yml (which cannot run here): every service replica has the same Redis, secret and
    settings, the proxy's upstreams are exactly those replicas, and only the proxy publishes a port."""
    import re

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    replicas = {name: s for name, s in services.items() if "SMQ_REDIS_URL" in s.get("environment", {})}
    assert len(replicas) == 2
    environments = [s["environment"] for s in replicas.values()]
    assert all(env == environments[0] for env in environments)
    assert environments[0]["SMQ_REDIS_URL"] == "redis://redis:6379/0" and environments[0]["SMQ_STATE_SECRET"]
    assert all(s["depends_on"]["redis"]["condition"] == "service_healthy" and "ports" not in s for s in replicas.values())
    assert "redis" in services and services["proxy"]["ports"] == ["127.0.0.1:8000:8080"]
    assert set(services["proxy"]["depends_on"]) == set(replicas)
    nginx = (DOCKER / "nginx.conf").read_text(encoding="utf-8")
    assert set(re.findall(r"^\s*server (\S+):8000\b", nginx, re.M)) == set(replicas)
    assert "listen 8080;" in nginx and "proxy_buffering off;" in nginx  # server-sent events of /ask/stream
