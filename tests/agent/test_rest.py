"""POST /v1/databases/{db}/ask and /ask/stream with a scripted model (dependency override), and the 503
a service without a configured model answers."""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from agent import AgentConfig  # noqa: E402
from agent.providers.base import ProviderError  # noqa: E402
from agent.providers.scripted import ScriptedProvider, call  # noqa: E402
from service.app import create_app  # noqa: E402
from service.routes import ask  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ  # noqa: E402

SCRIPT = [call("getModelDataElements", "Look at orders and nations.", models=["OrdersModel", "NationsModel"]),
          call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ),
          call("execute", "Rank them.", sql=FINAL_SQL)]
KEYS = {"open-key": {"name": "analyst", "databases": ["shop"]},
        "de-key": {"name": "de", "databases": ["shop"], "role": "de_analyst"}}


def build_app(models: Path, keys_file: Path | None, trace_dir: Path) -> FastAPI:
    settings = Settings(models_dir=models, api_keys_file=keys_file, open_access=keys_file is None, max_rows=100)
    app = create_app(settings)
    if not any(getattr(r, "path", "") == "/v1/databases/{db}/ask" for r in app.routes):
        app.include_router(ask.router)  # until the service wires it in create_app
    app.state.agent_config = AgentConfig(trace_dir=trace_dir)
    return app


@pytest.fixture()
def keys_file(tmp_path: Path) -> Path:
    entries = [{**e, "sha256": hashlib.sha256(k.encode()).hexdigest()} for k, e in KEYS.items()]
    path = tmp_path / "keys.yml"
    path.write_text(yaml.safe_dump({"keys": entries}), encoding="utf-8")
    return path


@pytest.fixture()
def app(agent_models: Path, keys_file: Path, tmp_path: Path) -> FastAPI:
    return build_app(agent_models, keys_file, tmp_path / "traces")


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def use_script(app: FastAPI, script: list[Any]) -> ScriptedProvider:
    provider = ScriptedProvider(list(script))
    app.dependency_overrides[ask.get_provider_factory] = lambda: (lambda: provider)
    return provider


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_ask_answers_with_sql_rows_trace_and_tokens(app, client, expected_top, tmp_path):
    use_script(app, SCRIPT)
    response = client.post("/v1/databases/shop/ask", json={"question": QUESTION}, headers=auth("open-key"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "answered" and body["sql"] == FINAL_SQL
    assert body["columns"] == ["country", "orders", "rank_by_orders"] and [r[:2] for r in body["rows"]] == expected_top
    assert body["tokens"]["total"] > 0 and len(body["tokens"]["turns"]) == 3 and body["turns"] == 3
    assert body["trace"].startswith("shop-") and (tmp_path / "traces" / body["trace"]).exists()
    assert "/" not in body["trace"]  # no server paths leak
    assert "trace_detail" not in body or body["trace_detail"] is None


def test_ask_can_return_the_whole_trace(app, client):
    use_script(app, SCRIPT)
    body = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "include_trace": True},
                       headers=auth("open-key")).json()
    detail = body["trace_detail"]
    assert [t["tool"] for t in detail["turns"]] == ["getModelDataElements", "convertSmqToSql", "execute"]


def test_ask_runs_as_the_key_role(app, client):
    final = call("execute", "", sql="SELECT n.nation_name, COUNT(o.order_id) AS orders FROM orders o JOIN customers c "
                                    "ON UPPER(TRIM(o.customer_ref)) = c.customer_code JOIN nations n ON c.nation_id = n.nation_id GROUP BY 1")
    use_script(app, [SCRIPT[1], final])
    body = client.post("/v1/databases/shop/ask", json={"question": "orders by country"}, headers=auth("de-key")).json()
    assert body["status"] == "answered" and [r[0] for r in body["rows"]] == ["Germany"]


def test_ask_reports_a_failed_run_in_the_body(app, client):
    use_script(app, [ProviderError("400 INVALID_ARGUMENT", status=400)])
    body = client.post("/v1/databases/shop/ask", json={"question": QUESTION}, headers=auth("open-key")).json()
    assert body["status"] == "error" and "400 INVALID_ARGUMENT" in body["reason"] and body["sql"] is None


def test_ask_validates_its_body_and_the_caller(app, client):
    use_script(app, SCRIPT)
    assert client.post("/v1/databases/shop/ask", json={"question": ""}, headers=auth("open-key")).status_code == 422
    assert client.post("/v1/databases/shop/ask", json={"question": "x", "extra": 1}, headers=auth("open-key")).status_code == 422
    assert client.post("/v1/databases/shop/ask", json={"question": "x"}).status_code == 401
    assert client.post("/v1/databases/nope/ask", json={"question": "x"}, headers=auth("open-key")).status_code == 403


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith(":")]
        if not lines:
            continue
        name = next(line[len("event: "):] for line in lines if line.startswith("event: "))
        data = "".join(line[len("data: "):] for line in lines if line.startswith("data: "))
        events.append((name, json.loads(data)))
    return events


def test_ask_stream_sends_one_event_per_turn_then_the_result(app, client, expected_top):
    use_script(app, SCRIPT)
    with client.stream("POST", "/v1/databases/shop/ask/stream", json={"question": QUESTION}, headers=auth("open-key")) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        text = "".join(response.iter_text())
    events = parse_sse(text)
    assert [name for name, _ in events] == ["turn", "turn", "turn", "result"]
    assert [data["tool"] for _, data in events[:3]] == ["getModelDataElements", "convertSmqToSql", "execute"]
    assert events[1][1]["result"]["preview"]["rows"] == expected_top and events[0][1]["reasoning"].startswith("Look at")
    result = events[-1][1]
    assert result["status"] == "answered" and [r[:2] for r in result["rows"]] == expected_top


def test_without_a_model_both_routes_answer_503(agent_models, tmp_path, monkeypatch):
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SMQ_PROVIDER", "SMQ_MODEL"):
        monkeypatch.delenv(var, raising=False)
    app = build_app(agent_models, None, tmp_path)
    del app.state.agent_config  # the environment decides: nothing configured
    with TestClient(app) as client:
        for path in ("/v1/databases/shop/ask", "/v1/databases/shop/ask/stream"):
            response = client.post(path, json={"question": QUESTION})
            assert response.status_code == 503
            assert response.headers["content-type"].startswith("application/problem+json")
            problem = response.json()
            assert problem["code"] == "agent_not_configured" and problem["status"] == 503
            assert "GEMINI_API_KEY" in problem["detail"] and "OPENAI_BASE_URL" in problem["detail"]
