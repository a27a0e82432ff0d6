"""The MCP server through the SDK's own client: `smq mcp` spawned over stdio, and streamable HTTP on
127.0.0.1, with API keys and roles as on REST."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from tests.conftest import ROOT  # noqa: E402
from tests.service.conftest import free_port  # noqa: E402


def smq_mcp_command(*args: str) -> list[str]:
    """`smq mcp ...` as a command: through the main CLI once it registers `mcp`, else the command module."""
    from smq_cli.main import build_parser

    registered = "mcp" in build_parser()._subparsers._group_actions[0].choices  # noqa: SLF001
    module = "smq_cli.main" if registered else "smq_cli.commands.explore_commands"
    return [sys.executable, "-m", module, "mcp", *args]


def payload(result: Any) -> dict[str, Any]:
    assert result.content and result.content[0].type == "text"
    body = json.loads(result.content[0].text)
    assert result.structured_content == body
    return body


# -- stdio ----------------------------------------------------------------------------------------------
def stdio(models_dir: Path, keys_file: Path, key: str, *extra: str) -> StdioServerParameters:
    command = smq_mcp_command("--models-dir", str(models_dir), "--api-keys", str(keys_file), *extra)
    return StdioServerParameters(command=command[0], args=command[1:], env={"SMQ_API_KEY": key}, cwd=str(ROOT))


def test_stdio_tools_under_a_role(models_dir, keys_file):
    async def session() -> None:
        async with Client(stdio(models_dir, keys_file, "de-key", "--db", "shop")) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names[:3] == ["getModelDataElements", "convertSmqToSql", "execute"]
            assert {"listModels", "listTables", "describeTable", "readQuery"} <= set(names) and "python" not in names
            elements = payload(await client.call_tool("getModelDataElements", {"models": ["CustomersModel"]}))
            assert "models" in elements, elements
            every = payload(await client.call_tool("getModelDataElements", {}))  # optional, as REST /elements has it
            assert len(every["models"]) == 8, every
            assert "CustomersModel__customerName" not in {d["name"] for d in elements["models"][0]["dimensions"]}
            described = payload(await client.call_tool("describeTable", {"table": "customers"}))
            assert "customer_name" not in {c["name"] for c in described["columns"]}
            refused = await client.call_tool("execute", {"sql": "SELECT nation_name FROM payments"})
            assert refused.is_error and "has not appeared" in payload(refused)["error"]
            smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}
            compiled = payload(await client.call_tool("convertSmqToSql", {"smq": smq}))
            assert compiled["preview"]["rows"] == [["Germany", compiled["preview"]["rows"][0][1]]]
            structured = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                          "filters": [{"or": [{"member": "OrdersModel__channel", "operator": "equals", "values": ["web"]},
                                              {"member": "OrdersModel__channel", "operator": "equals", "values": ["store"]}]}],
                          "order_by": ["OrdersModel__channel"]}
            compiled = payload(await client.call_tool("convertSmqToSql", {"smq": structured}))
            assert [row[0] for row in compiled["preview"]["rows"]] == ["store", "web"], compiled
            tools = {t.name: t for t in (await client.list_tools()).tools}
            declared = tools["convertSmqToSql"].input_schema["properties"]["smq"]["properties"]["filters"]["items"]
            assert any("member" in option.get("properties", {}) for option in declared["anyOf"])
            rows = payload(await client.call_tool("execute", {"sql": "SELECT nation_name FROM nations ORDER BY 1"}))
            assert rows["rows"] == [["Germany"]]  # the role's row filter, on raw SQL too
            models = payload(await client.call_tool("listModels", {"question": "orders per country"}))["models"]
            assert {m["directive"] for m in models} == {"relevant", "irrelevant"}

    anyio.run(session)


def test_stdio_refuses_a_wrong_key(models_dir, keys_file):
    command = smq_mcp_command("--models-dir", str(models_dir), "--api-keys", str(keys_file))
    env = {**os.environ, "SMQ_API_KEY": "wrong"}
    done = subprocess.run(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "invalid API key" in done.stderr
    env.pop("SMQ_API_KEY")
    done = subprocess.run(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "SMQ_API_KEY" in done.stderr


# -- streamable HTTP ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def http_server(models_dir: Path, keys_file: Path) -> Iterator[str]:
    import uvicorn

    from service.app import build_state
    from service.mcp.server import build_server, http_app
    from service.settings import Settings

    state = build_state(Settings(models_dir=models_dir, api_keys_file=keys_file))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(build_server(state), state), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)
    state.registry.close()


def http_client(url: str, key: str) -> Client:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"},
                                                                              timeout=30)))


def test_http_needs_a_key(http_server):
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    r = httpx.post(http_server, json=body, headers=headers)
    assert r.status_code == 401 and r.json()["code"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    r = httpx.post(http_server, json=body, headers={**headers, "Authorization": "Bearer nope"})
    assert r.status_code == 401


def test_http_tools_with_keys(http_server):
    async def session() -> None:
        async with http_client(http_server, "all-key") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "database" in tools["describeTable"].input_schema["required"]  # several databases: say which
            missing = await client.call_tool("listTables", {})
            assert missing.is_error and "database" in payload(missing)["error"]
            values = payload(await client.call_tool("getColValues", {"database": "shop", "table": "orders", "column": "channel"}))
            assert values["values"][0] == {"value": "web", "count": 2450}
            forbidden = await client.call_tool("listTables", {"database": "nope"})
            assert forbidden.is_error and payload(forbidden)["code"] == "unknown_database"
        async with http_client(http_server, "de-key") as client:
            rows = payload(await client.call_tool("readQuery", {"database": "shop", "sql": "SELECT nation_name FROM nations"}))
            assert rows["rows"] == [["Germany"]]
        async with http_client(http_server, "shop-key") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "database" not in tools["listTables"].input_schema.get("required", [])  # one database: implied
            other = await client.call_tool("listTables", {"database": "other"})
            assert other.is_error and payload(other)["code"] == "database_forbidden"

    anyio.run(session)
