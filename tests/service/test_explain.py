"""POST /v1/databases/{db}/explain and `smq explain`: the three stages as data, for the caller's role."""

from __future__ import annotations

import json
import subprocess
import sys

from ..conftest import ROOT
from .conftest import auth

SMQ = {"metrics": ["averageOrderValue"], "group_by": ["OrdersModel__channel"], "filters": ["OrdersModel__status = 'shipped'"]}


def test_explain_shows_the_resolved_query_the_plan_and_the_sql(client) -> None:
    answer = client.post("/v1/databases/shop/explain", json={"smq": SMQ}, headers=auth("shop-key"))
    assert answer.status_code == 200, answer.text
    report = answer.json()
    models = [a["model"] for a in report["resolved"]["aggregations"]]
    assert models == ["OrderItemsModel", "OrdersModel"]  # a ratio of two models: two aggregations, never one join
    assert report["resolved"]["filters"][0]["applies"] == "before aggregating"
    assert report["plan"]["node"] == "OrderLimit" and report["plan"]["input"]["node"] == "Project"
    assert [n["node"] for n in report["plan"]["input"]["input"]["inputs"]] == ["Aggregate", "Aggregate"]
    compiled = client.post("/v1/databases/shop/compile", json={"smq": SMQ, "preview": False}, headers=auth("shop-key")).json()
    assert report["sql"] == compiled["sql"]


def test_explain_is_the_roles(client) -> None:
    report = client.post("/v1/databases/shop/explain", json={"smq": SMQ}, headers=auth("de-key")).json()
    assert report["role"] == "de_analyst"
    hidden = client.post("/v1/databases/shop/explain", json={"smq": {"metrics": ["OrdersModel__orderCount"],
                                                                     "group_by": ["CustomersModel__customerName"]}},
                         headers=auth("de-key"))
    assert hidden.status_code == 400 and hidden.json()["code"] == "unknown_element"


def test_smq_explain_prints_the_stages() -> None:
    run = subprocess.run([sys.executable, "-m", "smq_cli.main", "explain", "--db", "shop", json.dumps(SMQ)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Resolved query" in run.stdout and "\nPlan\n" in run.stdout and "SQL (duckdb)" in run.stdout
    as_json = subprocess.run([sys.executable, "-m", "smq_cli.main", "explain", "--db", "shop", "--format", "json", json.dumps(SMQ)],
                             capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert json.loads(as_json.stdout)["plan"]["node"] == "OrderLimit"
