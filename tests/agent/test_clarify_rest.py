"""Clarification over REST: `POST /ask` with `clarify: true` answers `needs_clarification`, the run waits
in memory, `POST /ask/{run_id}/answers` continues it to the answer; unknown runs and questions are
problems; the paused-run store expires and caps its runs."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from agent import AgentConfig  # noqa: E402
from agent.providers.scripted import ScriptedProvider, call  # noqa: E402
from service.app import create_app  # noqa: E402
from service.routes import ask  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ  # noqa: E402

Q = "Customer country or supplier country?"
ASK = call("ask_user", "Ambiguous: whose country?", question=Q)
COMPILE = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
FINAL = call("execute", "Rank them.", sql=FINAL_SQL)


@pytest.fixture()
def app(agent_models: Path, tmp_path: Path) -> FastAPI:
    app = create_app(Settings(models_dir=agent_models, open_access=True, max_rows=100))
    if not any(getattr(r, "path", "") == "/v1/databases/{db}/ask" for r in app.routes):
        app.include_router(ask.router)
    app.state.agent_config = AgentConfig(trace_dir=tmp_path / "traces", tips=False, profile=False)
    return app


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def use_script(app: FastAPI, script: list[Any]) -> ScriptedProvider:
    provider = ScriptedProvider(list(script))
    app.dependency_overrides[ask.get_provider_factory] = lambda: (lambda: provider)
    return provider


def test_needs_clarification_then_answers_then_the_answer(app, client, expected_top, tmp_path):
    provider = use_script(app, [ASK, COMPILE, FINAL])
    first = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True})
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["status"] == "needs_clarification" and body["questions"] == [Q] and body["sql"] is None
    run_id = body["run_id"]
    assert "Waiting for the user" in (tmp_path / "traces" / body["trace"]).read_text()
    second = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: "the customer's"}, "include_trace": True})
    assert second.status_code == 200, second.text
    done = second.json()
    assert done["status"] == "answered" and done["run_id"] == run_id and [r[:2] for r in done["rows"]] == expected_top
    assert done["clarifications"] == [{"question": Q, "answer": "the customer's"}] and done["turns"] == 3
    # the model read the answer as the ask_user call's result
    seen = provider.requests[1]["messages"][-1]
    assert seen.role == "tool" and seen.name == "ask_user" and seen.result["answer"] == "the customer's"
    assert done["trace_detail"]["turns"][0]["result"]["answer"] == "the customer's"
    again = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: "x"}})
    assert again.status_code == 404 and again.json()["code"] == "run_not_found"  # a run resumes once


def test_no_answer_leaves_the_agent_to_drop_it(app, client):
    drop = call("drop_question", "No answer: assume the customer's.", question=Q, reason="the customer's country")
    provider = use_script(app, [ASK, drop, COMPILE, FINAL])
    run_id = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True}).json()["run_id"]
    done = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: None}}).json()
    assert done["status"] == "answered" and done["assumptions"][0].startswith("the customer's country")
    assert "no answer" in provider.requests[1]["messages"][-1].result["note"]


def test_unknown_questions_and_runs_are_problems(app, client):
    use_script(app, [ASK, COMPILE, FINAL])
    run_id = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True}).json()["run_id"]
    wrong = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {"What colour?": "blue"}})
    assert wrong.status_code == 422 and wrong.json()["code"] == "unknown_question" and Q in wrong.json()["detail"]
    ok = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: "customer"}})  # the run was kept
    assert ok.json()["status"] == "answered"
    missing = client.post("/v1/databases/shop/ask/nope/answers", json={"answers": {}})
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("application/problem+json")


def test_without_clarify_the_tools_are_not_offered(app, client):
    provider = use_script(app, [COMPILE, FINAL])
    body = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": False, "repair_rounds": 0,
                                                       "tips": True}).json()
    assert body["status"] == "answered" and body["assumptions"] == []
    assert "ask_user" not in provider.requests[0]["tools"]
    assert client.post("/v1/databases/shop/ask", json={"question": QUESTION, "plans": 99}).status_code == 422


def test_stream_ends_with_the_paused_result(app, client):
    use_script(app, [ASK, COMPILE, FINAL])
    with client.stream("POST", "/v1/databases/shop/ask/stream", json={"question": QUESTION, "clarify": True}) as response:
        text = "".join(response.iter_text())
    assert "event: result" in text and '"status":"needs_clarification"' in text
    run_id = text.split('"run_id":"')[1].split('"')[0]
    done = client.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: "customer"}}).json()
    assert done["status"] == "answered"


def test_paused_runs_expire_and_are_capped():
    now = [0.0]
    store = ask.PausedRuns(ttl_s=10, cap=2, clock=lambda: now[0])

    class Db:
        name, role = "shop", None

        class principal:  # noqa: N801 - the shape of service.deps.Database
            name = "k"

    def entry() -> Any:
        return ask._Paused(agent=None, run=None, database="shop", principal="k", role=None)  # type: ignore[arg-type]

    store.put("a", entry())
    store.put("b", entry())
    store.put("c", entry())  # over the cap: the oldest goes
    assert len(store) == 2 and store.take("a", Db) is None  # type: ignore[arg-type]
    now[0] = 11.0
    assert store.take("b", Db) is None and len(store) == 0  # type: ignore[arg-type]
