"""The think-act loop on the real demo database, driven by scripted providers (no network)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agent import AgentConfig, Hooks, run_agent
from agent.providers.base import Message, ModelResponse, ToolCall, Usage
from agent.providers.scripted import ScriptedProvider, call, say
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

ELEMENTS = call("getModelDataElements", "Orders per country: OrdersModel and NationsModel.", models=["OrdersModel", "NationsModel"])
COMPILE = call("convertSmqToSql", "Compile the top three to see tables and joins.", smq=TOP_SMQ)
FINAL = call("execute", "Rank them with a window function.", sql=FINAL_SQL)


def config(tmp_path: Path, **changes: Any) -> AgentConfig:
    return AgentConfig(trace_dir=tmp_path / "traces", **changes)


def run(layer, executor, script, tmp_path: Path, **kwargs: Any):
    hooks = kwargs.pop("hooks", None)
    role = kwargs.pop("role", None)
    provider = ScriptedProvider(script)
    result = run_agent(layer, executor, provider, QUESTION, config(tmp_path, **kwargs), role=role, hooks=hooks)
    return result, provider


def test_success_composes_own_sql_from_compiled_blocks(layer, executor, expected_top, tmp_path):
    result, provider = run(layer, executor, [ELEMENTS, COMPILE, FINAL], tmp_path)
    assert result.status == "answered", result.reason
    assert result.sql == FINAL_SQL
    assert result.columns == ["country", "orders", "rank_by_orders"]
    assert [row[:2] for row in result.rows] == expected_top
    assert [row[2] for row in result.rows] == [1, 2, 3]
    # the starting context is the model list with descriptions and the dialect
    first = provider.requests[0]["messages"][0].content
    assert "duckdb" in first and QUESTION in first
    assert all(f"- {m['name']}: " in first for m in layer.model_list())
    assert provider.requests[0]["tools"] == ["getModelDataElements", "convertSmqToSql", "execute"]
    # the compile result carries the SQL and a five-row-at-most preview
    compiled = result.trace.turns[1].result
    assert compiled["sql"] == layer.compile(TOP_SMQ)
    assert compiled["preview"]["columns"] == ["NationsModel__country", "OrdersModel__orderCount"]
    assert compiled["preview"]["rows"] == expected_top
    # tokens per turn and in total
    tokens = result.tokens
    assert len(tokens["turns"]) == 3 and tokens["total"] == sum(t["total"] for t in tokens["turns"]) > 0


def test_trace_files_markdown_and_json(layer, executor, tmp_path):
    result, _ = run(layer, executor, [ELEMENTS, COMPILE, FINAL], tmp_path)
    md = result.trace_path
    assert md is not None and md.parent == tmp_path / "traces"
    assert md.name.startswith("shop-") and md.suffix == ".md" and len(md.stem.split("-")[-1]) == 8
    text = md.read_text()
    assert "## Turn 2: convertSmqToSql" in text and "```sql" in text and "| NationsModel__country |" in text
    assert "> Rank them with a window function." in text and "status: **answered**" in text
    data = json.loads(md.with_suffix(".json").read_text())
    assert data["status"] == "answered" and data["sql"] == FINAL_SQL and len(data["turns"]) == 3
    assert data["turns"][0]["tool"] == "getModelDataElements" and data["tokens"]["total"] == result.tokens["total"]
    body = result.to_json()
    assert set(body) >= {"status", "sql", "columns", "rows", "trace", "tokens"} and body["trace"] == str(md)


def test_repair_after_compile_error(layer, executor, tmp_path):
    ambiguous = call("convertSmqToSql", "Revenue by country.", smq={"metrics": ["OrderItemsModel__revenue"],
                                                                   "group_by": ["NationsModel__country"]})
    fixed = call("convertSmqToSql", "Take the buyer's country path.",
                 smq={"metrics": ["OrderItemsModel__revenue"], "group_by": ["order.customer.nation.NationsModel__country"]})
    result, provider = run(layer, executor, [ELEMENTS, ambiguous, fixed, COMPILE, FINAL], tmp_path)
    assert result.status == "answered"
    error = result.trace.turns[1].result["error"]
    assert "ambiguous" in error and "order.customer.nation.NationsModel__country" in error
    # the model saw the error as the tool's result
    seen = provider.requests[2]["messages"][-1]
    assert seen.role == "tool" and seen.name == "convertSmqToSql" and "ambiguous" in seen.result["error"]
    assert [t.outcome for t in result.trace.turns] == ["ok", "error", "ok", "ok", "answered"]


@pytest.mark.parametrize("sql, expected", [
    ("SELECT COUNT(*) FROM OrdersModel", "'OrdersModel' is a semantic model"),
    ("SELECT * FROM payments", "table 'payments' has not appeared in any compiled SQL"),
    ("SELECT table_name FROM information_schema.tables", "system catalog"),
    ("SELECT * FROM sqlite_master", "system catalog"),
    ("DELETE FROM orders", "DELETE"),
    ("SELECT 1; DROP TABLE orders", "multiple statements"),
])
def test_refused_final_sql_then_success(layer, executor, tmp_path, sql, expected):
    result, provider = run(layer, executor, [ELEMENTS, COMPILE, call("execute", "try", sql=sql), FINAL], tmp_path)
    assert result.status == "answered"
    refused = result.trace.turns[2]
    assert refused.outcome == "refused" and expected in refused.result["error"]
    if "FROM" in sql and "DELETE" not in sql and ";" not in sql:  # the guard lists what the run has seen
        assert "Physical tables seen so far: customers, nations, orders" in refused.result["error"]
    assert provider.requests[3]["messages"][-1].result == refused.result


def test_unseen_table_before_any_compile_says_so(layer, executor, tmp_path):
    result, _ = run(layer, executor, [call("execute", "guess", sql="SELECT * FROM orders"), COMPILE, FINAL], tmp_path)
    assert result.status == "answered"
    assert "none yet (call convertSmqToSql first)" in result.trace.turns[0].result["error"]


def test_step_budget_gives_up(layer, executor, tmp_path):
    script = [ELEMENTS] * 10
    result, provider = run(layer, executor, script, tmp_path, max_turns=4)
    assert result.status == "gave_up" and "step budget (4 turns)" in result.reason
    assert len(result.trace.turns) == 4 and provider.remaining == 6
    assert result.sql is None and result.rows == []
    assert "note" in result.trace.turns[-1].result  # the model was told the budget is nearly gone
    assert "No answer" in result.trace_path.read_text()


def test_smq_budget_refuses_further_compiles(layer, executor, tmp_path):
    result, _ = run(layer, executor, [COMPILE, COMPILE, COMPILE, FINAL], tmp_path, max_smq_calls=2)
    assert result.status == "answered"
    assert result.trace.turns[2].outcome == "refused" and "budget of 2 convertSmqToSql" in result.trace.turns[2].result["error"]


def test_failed_execute_is_repaired_within_bound(layer, executor, tmp_path):
    broken = call("execute", "typo", sql="SELECT nation_nam FROM nations")
    result, _ = run(layer, executor, [COMPILE, broken, broken, FINAL], tmp_path)
    assert result.status == "answered"
    assert [t.outcome for t in result.trace.turns] == ["ok", "failed", "failed", "answered"]
    assert "the database rejected the query" in result.trace.turns[1].result["error"]


def test_failed_execute_gives_up_after_repairs(layer, executor, tmp_path):
    broken = call("execute", "typo", sql="SELECT nation_nam FROM nations")
    result, provider = run(layer, executor, [COMPILE] + [broken] * 5 + [FINAL], tmp_path, max_repairs=3)
    assert result.status == "gave_up" and "failed 4 times (3 repairs allowed)" in result.reason
    assert provider.remaining == 2


def test_no_tool_call_is_reminded(layer, executor, tmp_path):
    result, provider = run(layer, executor, [say("The answer is Germany."), COMPILE, FINAL], tmp_path)
    assert result.status == "answered"
    assert result.trace.turns[0].tool is None and "reminded" in result.trace.turns[0].summary
    reminder = provider.requests[1]["messages"][-1]
    assert reminder.role == "user" and "exactly one tool call" in reminder.content


def test_extra_calls_in_one_turn_are_not_run(layer, executor, tmp_path):
    double = ModelResponse(text="Both at once.", tool_calls=(
        ToolCall("convertSmqToSql", {"smq": TOP_SMQ}, id="a"), ToolCall("execute", {"sql": FINAL_SQL}, id="b")))
    result, provider = run(layer, executor, [double, FINAL], tmp_path)
    assert result.status == "answered" and result.trace.turns[0].ignored_calls == ["execute"]
    replies = [m for m in provider.requests[1]["messages"] if m.role == "tool"]
    assert [m.tool_call_id for m in replies] == ["a", "b"] and "one tool call per turn" in replies[1].result["error"]


def test_bad_arguments_and_unknown_tool_are_errors_not_crashes(layer, executor, tmp_path):
    script = [call("convertSmqToSql", "", smq="{not json"), call("getModelDataElements", "", models=[1]),
              call("dropTables", ""), call("convertSmqToSql", "", smq=json.dumps(TOP_SMQ)), FINAL]
    result, _ = run(layer, executor, script, tmp_path)
    assert result.status == "answered"
    assert [t.outcome for t in result.trace.turns] == ["error", "error", "error", "ok", "answered"]
    assert "unknown tool 'dropTables'" in result.trace.turns[2].result["error"]


def test_role_applies_to_every_tool(layer, executor, tmp_path):
    elements = call("getModelDataElements", "", models=["CustomersModel"])
    compile_ = call("convertSmqToSql", "", smq={"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]})
    final = call("execute", "", sql='SELECT n.nation_name, COUNT(o.order_id) AS orders FROM orders o JOIN customers c '
                                    'ON UPPER(TRIM(o.customer_ref)) = c.customer_code JOIN nations n ON c.nation_id = n.nation_id GROUP BY 1')
    result, _ = run(layer, executor, [elements, compile_, final], tmp_path, role="de_analyst")
    assert result.status == "answered"
    names = [d["name"] for d in result.trace.turns[0].result["models"][0]["dimensions"]]
    assert "CustomersModel__customerName" not in names and "CustomersModel__segment" in names
    assert {r[0] for r in result.trace.turns[1].result["preview"]["rows"]} == {"Germany"}
    assert [r[0] for r in result.rows] == ["Germany"] and result.trace.role == "de_analyst"


def test_role_refusal_is_actionable(layer, executor, tmp_path):
    hidden = call("execute", "", sql="SELECT customer_name FROM customers")
    compile_ = call("convertSmqToSql", "", smq={"metrics": ["CustomersModel__customerCount"], "group_by": ["CustomersModel__segment"]})
    final = call("execute", "", sql="SELECT segment, COUNT(customer_id) FROM customers GROUP BY 1")
    result, _ = run(layer, executor, [compile_, hidden, final], tmp_path, role="de_analyst")
    assert result.status == "answered"
    assert result.trace.turns[1].outcome == "refused" and "hidden" in result.trace.turns[1].result["error"]


def test_run_timeout_gives_up(layer, executor, tmp_path):
    now = [0.0]

    def slow_clock() -> float:
        now[0] += 40.0
        return now[0]

    result, _ = run(layer, executor, [ELEMENTS] * 10, tmp_path, run_timeout_s=100,
                    hooks=Hooks(clock=slow_clock, sleep=lambda s: None))
    assert result.status == "gave_up" and "time budget (100 s)" in result.reason


def test_cancel_stops_the_run(layer, executor, tmp_path):
    cancel = threading.Event()
    cancel.set()
    result, provider = run(layer, executor, [ELEMENTS], tmp_path, hooks=Hooks(cancel=cancel))
    assert result.status == "error" and "cancelled" in result.reason and provider.requests == []


def test_function_script_and_no_trace_dir(layer, executor, expected_top):
    def model(messages: list[Message]) -> ModelResponse:
        seen = [m for m in messages if m.role == "tool"]
        if not seen:
            return call("convertSmqToSql", "compile first", smq=TOP_SMQ, usage=Usage(10, 5, 2))
        return call("execute", "done", sql=FINAL_SQL, usage=Usage(20, 7, 3))

    result = run_agent(layer, executor, ScriptedProvider(model), QUESTION, AgentConfig(trace_dir=None))
    assert result.status == "answered" and result.trace_path is None
    assert result.tokens["input"] == 30 and result.tokens["thinking"] == 5 and result.tokens["total"] == 47


def test_internal_error_still_ends_with_a_trace(layer, executor, tmp_path):
    def broken(messages: list[Message]) -> ModelResponse:
        raise RuntimeError("boom")

    result = run_agent(layer, executor, ScriptedProvider(broken), QUESTION, config(tmp_path))
    assert result.status == "error" and "RuntimeError: boom" in result.reason and result.trace_path.exists()
