"""node-postgres (`pg` from npm, tests/service/pg_node with its lockfile) against the live listener."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.service.conftest import node_client
from tests.service.pgwire_support import ADMIN_KEY, PgService, assert_same_rows, pg_service, rest_rows  # noqa: F401

CLIENT = Path(__file__).parent / "pg_node"


def test_node_postgres(pg_service: PgService, client: object, tmp_path: Path) -> None:
    folder = node_client(CLIENT, ("pg",), "the node-postgres test")
    out = tmp_path / "results.json"
    done = subprocess.run(["node", str(folder / "queries.mjs"), str(pg_service.port), ADMIN_KEY, str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert len(results["tables"]["ok"]) == 8
    columns = {c["column_name"]: c["data_type"] for c in results["columns"]["ok"]}
    assert columns["orderCount"] == "bigint" and columns["orderDate"] == "date"
    grouped = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                                 "order_by": ["OrdersModel__channel"]})["rows"]
    assert_same_rows([[c, int(n)] for c, n in results["grouped"]["ok"]], grouped)
    monthly = rest_rows(client, {"metrics": ["OrderItemsModel__revenue"], "group_by": ["OrdersModel__orderDate__month"],
                                 "filters": ["OrdersModel__channel = 'web'", "OrdersModel__orderDate >= '2024-01-01'",
                                             "OrdersModel__orderDate < '2024-04-01'"],
                                 "order_by": ["OrdersModel__orderDate__month"]})["rows"]
    assert len(monthly) == 3
    assert_same_rows(results["parameterised"]["ok"], monthly)
    for name, status in (("prepared", "shipped"), ("prepared_again", "returned")):
        expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"],
                                      "filters": [f"OrdersModel__status = '{status}'"]})["rows"]
        assert_same_rows([[int(n)] for (n,) in results[name]["ok"]], expected)
    assert results["unknown_column"]["error"]["code"] == "42703"
    assert '"channel"' in results["unknown_column"]["error"]["hint"]
    assert results["write"]["error"]["code"] == "25006"
    assert results["after_errors"]["ok"] == [{"one": 1}]
    assert results["wrong_key"]["error"]["code"] == "28P01"
    assert results["unknown_database"]["error"]["code"] == "3D000"
    assert "shop" in results["unknown_database"]["error"]["message"]
