"""The exploration tools (docs/directives.md, The exploration tools) on the real demo DuckDB and on a Spider SQLite database:
results, the caller's role (row filters, hidden columns), refusals, and `smq ask --tools` through the
agent loop with a scripted model."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import AgentConfig, AgentConfigError, run_agent
from agent.config import parse_tools
from agent.explore import EXPLORE_TOOLS, ExploreLimits, Explorer, ToolError, explore_tool_specs
from agent.providers.scripted import ScriptedProvider, call
from agent.tools import tool_specs
from engine import Layer, load_layer
from smq_db.executors import ReadOnlyViolation, create_executor
from tests.agent.sandbox_support import need_sandbox
from tests.conftest import ROOT, SHARED

SPIDER_DB = SHARED / "data" / "spider1" / "database" / "concert_singer" / "concert_singer.sqlite"


@pytest.fixture(scope="module")
def duck(layer: Layer, executor: Any) -> Explorer:  # noqa: F811
    return Explorer(layer, executor)


@pytest.fixture(scope="module")
def de(layer: Layer, executor: Any) -> Explorer:  # noqa: F811
    return Explorer(layer, executor, role="de_analyst")


@pytest.fixture(scope="module")
def spider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Explorer]:
    if not SPIDER_DB.exists():
        pytest.skip("Spider 1.0 data not in shared/")
    spec = importlib.util.spec_from_file_location("directives_spider1", ROOT / "bench" / "directives_spider1.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules["directives_spider1"] = bench
    spec.loader.exec_module(bench)
    import json

    tmp = tmp_path_factory.mktemp("spider")
    db = Path(shutil.copy(SPIDER_DB, tmp / "concert_singer.sqlite"))
    schema = next(s for s in json.loads((SPIDER_DB.parents[2] / "tables.json").read_text()) if s["db_id"] == "concert_singer")
    folder = bench.spider_layer(schema, db, tmp / "models")
    # a role: only French singers, and their ages hidden
    config = (folder / "database.yml").read_text() + ("access:\n  roles:\n    fr:\n      row_filters: [\"Singer__country = 'France'\"]\n"
                                                      "      hidden: [\"Singer__age\"]\n")
    (folder / "database.yml").write_text(config)
    sl = load_layer(folder)
    ex = create_executor(dict(sl.semantic.connection), base_dir=folder, dialect="sqlite")
    yield Explorer(sl, ex)
    ex.close()


# -- DuckDB (the demo) ------------------------------------------------------------------------------
def test_list_and_describe_tables(duck):
    tables = {t["table"]: t for t in duck.call("listTables", {})["tables"]}
    assert {"orders", "customers", "time_spine"} <= set(tables) and tables["orders"]["model"] == "OrdersModel"
    desc = duck.call("describeTable", {"table": "ORDERS"})
    cols = {c["name"]: c for c in desc["columns"]}
    assert cols["order_id"]["primary_key"] and cols["order_id"]["type"] == "INTEGER" and cols["status"]["nullable"]
    assert desc["model"] == "OrdersModel"
    assert duck.call("describeTable", {"table": "main.orders"})["table"] == "orders"


def test_join_info_shows_declared_joins_with_their_on_clause(duck):
    info = duck.call("getJoinInfo", {"table": "orders"})
    by_key = {j["key"]: j for j in info["declared_joins"]}
    assert by_key["customer"]["on"] == "UPPER(TRIM(orders.customer_ref)) = customers.customer_code"
    assert {"order", "customer", "paid_order"} == set(by_key)


def test_values_rows_profile_and_read_query(duck):
    values = duck.call("getColValues", {"table": "orders", "column": "channel"})
    assert [v["value"] for v in values["values"]] == ["web", "mobile", "store"] and values["values"][0]["count"] == 2450
    assert duck.call("getColValues", {"table": "orders", "column": "order_id", "limit": 2})["more"] is True
    rows = duck.call("findRows", {"table": "nations", "column": "nation_name", "terms": ["GER", "united"]})
    assert sorted(r[1] for r in rows["rows"]) == ["Germany", "United Arab Emirates", "United Kingdom", "United States"]
    profile = duck.call("profileColumn", {"table": "orders", "column": "order_date"})
    assert profile["row_count"] == 5000 and profile["min"] == "2023-01-01" and profile["max"] == "2024-12-31"
    assert profile["null_share"] == 0.0 and len(profile["top_values"]) == 5
    seg = duck.call("profileColumn", {"table": "customers", "column": "segment"})
    assert 0 < seg["null_share"] < 0.2 and seg["distinct_count"] == 3
    result = duck.call("readQuery", {"sql": "SELECT order_id FROM orders ORDER BY order_id"})
    assert result["row_count"] == 50 and result["truncated"]


@pytest.mark.parametrize("tool, args, code", [
    ("describeTable", {"table": "ordrs"}, "unknown_table"),
    ("describeTable", {"table": "OrdersModel"}, "unknown_table"),
    ("describeTable", {"table": "information_schema.tables"}, "catalog_refused"),
    ("getColValues", {"table": "orders", "column": "nope"}, "unknown_column"),
    ("getColValues", {"table": "orders"}, "tool_error"),
    ("getColValues", {"table": "orders", "column": "status", "limit": "x"}, "tool_error"),
    ("findRows", {"table": "orders", "column": "status", "terms": []}, "tool_error"),
    ("readQuery", {"sql": "SELECT * FROM information_schema.tables"}, "catalog_refused"),
    ("readQuery", {"sql": "SELECT * FROM OrdersModel"}, "not_a_table"),
    ("python", {"code": "print(1)"}, "tool_disabled"),
    ("nope", {}, "unknown_tool"),
])
def test_mistakes_are_tool_errors(duck, tool, args, code):
    with pytest.raises(ToolError) as err:
        duck.call(tool, args)
    assert err.value.code == code


def test_read_query_is_read_only(duck):
    with pytest.raises(ReadOnlyViolation):
        duck.call("readQuery", {"sql": "DELETE FROM orders"})


def test_the_role_filters_rows_and_hides_columns(duck, de):
    assert "customer_name" in {c["name"] for c in duck.call("describeTable", {"table": "customers"})["columns"]}
    assert "customer_name" not in {c["name"] for c in de.call("describeTable", {"table": "customers"})["columns"]}
    with pytest.raises(ToolError) as err:
        de.call("getColValues", {"table": "customers", "column": "customer_name"})
    assert err.value.code == "unknown_column"
    assert [r[1] for r in de.call("findRows", {"table": "nations", "column": "nation_name", "terms": ["a"]})["rows"]] == ["Germany"]
    assert de.call("profileColumn", {"table": "orders", "column": "order_id"})["row_count"] < 5000
    rows = de.call("readQuery", {"sql": "SELECT * FROM customers LIMIT 1"})
    assert "customer_name" not in rows["columns"]
    assert de.call("readQuery", {"sql": "SELECT COUNT(*) AS n FROM orders"})["rows"][0][0] < 5000


def test_list_models_with_directives(duck):
    plain = duck.call("listModels", {})["models"]
    assert {m["name"] for m in plain} == set(duck.layer.models) and "directive" not in plain[0]
    models = {m["name"]: m for m in duck.call("listModels", {"question": "How many suppliers per region?"})["models"]}
    assert models["SuppliersModel"]["directive"] == "relevant" and models["PaymentsModel"]["directive"] == "irrelevant"
    assert models["NationsModel"]["reason"].startswith("joins")


# -- SQLite (Spider) ------------------------------------------------------------------------------------
def test_sqlite_catalog_keys_and_values(spider):
    assert {t["table"] for t in spider.call("listTables", {})["tables"]} == {"concert", "singer", "singer_in_concert", "stadium"}
    desc = spider.call("describeTable", {"table": "singer_in_concert"})
    assert {fk["references"] for fk in desc["foreign_keys"]} == {"singer", "concert"}
    info = spider.call("getJoinInfo", {"table": "singer"})
    assert info["referenced_by"][0]["table"] == "singer_in_concert" and info["declared_joins"]
    values = spider.call("getColValues", {"table": "singer", "column": "Country"})
    assert values["values"][0] == {"value": "France", "count": 4}
    assert spider.call("findRows", {"table": "singer", "column": "name", "terms": ["joe"]})["rows"][0][1] == "Joe Sharp"
    assert spider.call("profileColumn", {"table": "singer", "column": "Age"})["max"] == 52


def test_sqlite_role(spider):
    fr = Explorer(spider.layer, spider.executor, role="fr")
    assert "Age" not in {c["name"] for c in fr.call("describeTable", {"table": "singer"})["columns"]}
    assert {v["value"] for v in fr.call("getColValues", {"table": "singer", "column": "Country"})["values"]} == {"France"}
    # singer_in_concert reaches Singer through a many_to_one step: filtered too
    assert fr.call("readQuery", {"sql": "SELECT COUNT(*) FROM singer_in_concert"})["rows"][0][0] < \
        spider.call("readQuery", {"sql": "SELECT COUNT(*) FROM singer_in_concert"})["rows"][0][0]


# -- the agent ---------------------------------------------------------------------------------------
def test_default_tools_are_the_papers_three():
    assert [s.name for s in tool_specs()] == ["getModelDataElements", "convertSmqToSql", "execute"]
    assert [s.name for s in tool_specs(("listTables", "describeTable"))][3:] == ["listTables", "describeTable"]
    assert {s.name for s in explore_tool_specs()} == set(EXPLORE_TOOLS)
    assert AgentConfig().tools == ()
    assert AgentConfig.from_env({"SMQ_AGENT_TOOLS": "listTables, describeTable,listTables"}).tools == ("listTables", "describeTable")
    assert parse_tools("a,,b") == ("a", "b")
    with pytest.raises(AgentConfigError):
        AgentConfig.from_env({}, tools=("bogus",))


def test_agent_run_with_exploration_tools(layer, executor, tmp_path):  # noqa: F811
    sql = "SELECT channel, COUNT(*) AS n FROM orders GROUP BY channel ORDER BY n DESC"
    script = [call("describeTable", "What does orders hold?", table="orders"),
              call("getColValues", "Channels?", table="orders", column="channel"),
              call("profileColumn", "Not enabled.", table="orders", column="channel"),
              call("execute", "Count per channel.", sql=sql)]
    provider = ScriptedProvider(script)
    config = AgentConfig(trace_dir=tmp_path, tools=("describeTable", "getColValues"))
    result = run_agent(layer, executor, provider, "Orders per channel?", config)
    assert result.status == "answered" and result.rows[0] == ["web", 2450]  # orders was seen through describeTable
    turns = result.trace.turns
    assert turns[0].outcome == "ok" and turns[1].result["values"][0]["value"] == "web"
    assert turns[2].outcome == "error" and "unknown tool" in turns[2].result["error"]
    assert provider.requests[0]["tools"] == ["getModelDataElements", "convertSmqToSql", "execute", "describeTable", "getColValues"]


def test_agent_tool_errors_do_not_end_the_run(layer, executor, tmp_path):  # noqa: F811
    script = [call("describeTable", "Guess.", table="ordrs"),
              call("execute", "Done.", sql="SELECT 1 AS one")]
    result = run_agent(layer, executor, ScriptedProvider(script), "q", AgentConfig(trace_dir=None, tools=("describeTable",)))
    assert result.trace.turns[0].outcome == "error" and "did you mean 'orders'" in result.trace.turns[0].result["error"]
    assert result.status == "answered"


def test_python_tool_when_enabled(layer, executor):  # noqa: F811
    need_sandbox()
    explorer = Explorer(layer, executor, limits=ExploreLimits(python_enabled=True))
    out = explorer.call("python", {"code": "print(6 * 7)"})
    assert out["stdout"] == "42\n" and out["exit_code"] == 0 and not out["timed_out"]


def test_smq_ask_tools_flag(capsys):
    from smq_cli.main import main

    assert main(["ask", "--db", "shop", "--tools", "describeTable,bogus", "q"]) == 2
    assert "unknown tool(s) bogus" in capsys.readouterr().err
