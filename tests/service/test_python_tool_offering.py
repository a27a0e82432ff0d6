"""Who is offered the python tool, on REST and MCP: never a key with a role, never a host without isolation."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from fastapi.testclient import TestClient

from agent.sandbox import forget_isolation_status
from service.app import create_app
from service.settings import Settings
from tests.agent.sandbox_support import need_sandbox
from tests.service.conftest import auth
from tests.service.test_tools_api import with_tools

ROWS = {"columns": ["channel", "n"], "rows": [["web", 2450], ["mobile", 1500]]}
SUM = "import json\nprint(sum(r[1] for r in json.load(open('data.json'))['rows']))"


@pytest.fixture()
def api(models_dir, keys_file) -> Iterator[TestClient]:
    app = with_tools(create_app(Settings(models_dir=models_dir, api_keys_file=keys_file)))
    app.state.python_tool = True
    with TestClient(app) as c:
        yield c


@pytest.fixture()
def no_bwrap(monkeypatch) -> Iterator[None]:
    """A host without bubblewrap: SMQ_SANDBOX_BWRAP names nothing, and the cached probe is forgotten."""
    monkeypatch.setenv("SMQ_SANDBOX_BWRAP", "/nonexistent/bwrap")
    forget_isolation_status()
    yield
    monkeypatch.delenv("SMQ_SANDBOX_BWRAP")
    forget_isolation_status()


def listed(api: TestClient, key: str) -> set[str]:
    return {t["name"] for t in api.get("/v1/databases/shop/tools", headers=auth(key)).json()["tools"]}


def test_rest_offers_python_to_a_key_without_a_role(api):
    need_sandbox()
    assert "python" in listed(api, "shop-key")
    r = api.post("/v1/databases/shop/tools/python", json={"code": SUM, "data": ROWS}, headers=auth("shop-key"))
    assert r.status_code == 200 and r.json()["stdout"] == "3950\n", r.text


def test_rest_never_offers_python_to_a_key_with_a_role(api):
    assert "python" not in listed(api, "de-key") and "describeTable" in listed(api, "de-key")
    r = api.post("/v1/databases/shop/tools/python", json={"code": "print(1)"}, headers=auth("de-key"))
    assert r.status_code == 403 and r.json()["code"] == "tool_refused" and "role" in r.json()["detail"]


def test_rest_without_isolation_has_no_python(api, no_bwrap):
    assert "python" not in listed(api, "shop-key")
    r = api.post("/v1/databases/shop/tools/python", json={"code": "print(1)"}, headers=auth("shop-key"))
    assert r.status_code == 403 and r.json()["code"] == "sandbox_unavailable" and "bubblewrap" in r.json()["detail"]


def mcp_session(models_dir, keys_file, key: str, env: dict[str, str] | None = None) -> tuple[list[str], dict]:
    from mcp import Client, StdioServerParameters

    from tests.conftest import ROOT
    from tests.service.test_mcp import payload, smq_mcp_command

    command = smq_mcp_command("--models-dir", str(models_dir), "--api-keys", str(keys_file), "--db", "shop", "--python")
    params = StdioServerParameters(command=command[0], args=command[1:], env={"SMQ_API_KEY": key, **(env or {})},
                                   cwd=str(ROOT))
    out: dict = {}

    async def session() -> None:
        async with Client(params) as client:
            out["names"] = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("python", {"code": SUM, "data": ROWS})
            out["error"], out["body"] = result.is_error, payload(result)

    anyio.run(session)
    return out["names"], out


def test_mcp_offers_python_only_without_a_role(models_dir, keys_file):
    pytest.importorskip("mcp")
    names, call = mcp_session(models_dir, keys_file, "de-key")
    assert "python" not in names and call["error"] and call["body"]["code"] == "tool_refused"
    need_sandbox()
    names, call = mcp_session(models_dir, keys_file, "shop-key")
    assert "python" in names and not call["error"] and call["body"]["stdout"] == "3950\n", call


def test_mcp_without_isolation_has_no_python(models_dir, keys_file):
    pytest.importorskip("mcp")
    names, call = mcp_session(models_dir, keys_file, "shop-key", {"SMQ_SANDBOX_BWRAP": "/nonexistent/bwrap"})
    assert "python" not in names and call["error"] and call["body"]["code"] == "sandbox_unavailable"
