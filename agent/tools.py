"""The three tools of spec section 5, as the model sees them and as they run.

Names and arguments are exactly the spec's, for every provider: `getModelDataElements {"models"}`,
`convertSmqToSql {"smq"}` -> `{"sql", "preview"}` or `{"error"}`, `execute {"sql"}`. Every tool runs
under the caller's access role: hidden elements are absent from listings, compiles and previews
use the role's filtered sources, and the final SQL is rewritten by `apply_role_to_sql` (or refused).
A tool never raises for the model's mistakes: it returns `{"error": ...}` the model can act on.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Sequence

from engine import Layer
from engine.access import apply_role_to_sql
from engine.readpolicy import policy_for
from engine.errors import EngineError, InternalError
from smq_db.executors import BackendUnavailable, QueryResult, ReadOnlyViolation
from engine.paging import paginate

from .guards import GuardRefusal, RunGuards
from .profiling import Profiler
from .prompts import tool_descriptions
from .providers.base import ToolCall, ToolSpec
from .tips import TipRetriever
from .tips import render as render_tips

log = logging.getLogger("smq.agent")

GET_ELEMENTS, CONVERT, EXECUTE = "getModelDataElements", "convertSmqToSql", "execute"
TOOL_NAMES = (GET_ELEMENTS, CONVERT, EXECUTE)
MAX_WARNINGS = 5  # profile warnings per compile result

# ok: exploration answered; error: the call was wrong (fix and retry); refused: a rule of the run was
# broken; failed: the database rejected the final SQL (a repair); answered: the run is over; fatal: stop;
# rejected: the final SQL ran but its result looks wrong (two-tier repair); paused: waiting for the user.
Outcome = Literal["ok", "error", "refused", "failed", "answered", "fatal", "rejected", "paused"]


class SqlExecutor(Protocol):
    def execute(self, sql: str, *, max_rows: int = ..., timeout_s: float = ...) -> QueryResult: ...


def tool_specs(extra: Sequence[str] = ()) -> list[ToolSpec]:
    """The function declarations sent to every provider (descriptions from prompts/tools.yml).

    `extra` switches on exploration tools of spec section 7 (agent/explore.py) after the paper's three.
    """
    d = tool_descriptions()
    names = {"type": "array", "items": {"type": "string"}}
    smq = {
        "type": "object",
        "description": d[f"{CONVERT}.smq"],
        "properties": {
            "metrics": {**names, "description": "measures (Model__measure) or metrics (bare names) to compute"},
            "group_by": {**names, "description": "dimensions to group by; time dimensions may end in __day/__week/__month/__quarter/__year"},
            "filters": {**names, "description": "SQL boolean expressions over element names"},
            "order_by": {**names, "description": "output names; prefix with - for descending"},
            "limit": {"type": "integer", "description": "most rows to return"},
        },
        "required": ["metrics"],
    }
    return [
        ToolSpec(GET_ELEMENTS, d[GET_ELEMENTS], {"type": "object", "properties": {
            "models": {**names, "description": d[f"{GET_ELEMENTS}.models"]}}, "required": ["models"]}),
        ToolSpec(CONVERT, d[CONVERT], {"type": "object", "properties": {"smq": smq}, "required": ["smq"]}),
        ToolSpec(EXECUTE, d[EXECUTE], {"type": "object", "properties": {
            "sql": {"type": "string", "description": d[f"{EXECUTE}.sql"]}}, "required": ["sql"]}),
    ] + (_explore_specs(extra) if extra else [])


def _explore_specs(extra: Sequence[str]) -> list[ToolSpec]:
    from .explore import explore_tool_specs

    return explore_tool_specs(tuple(extra))


@dataclass
class ToolOutcome:
    """What a call did: the JSON returned to the model, how it went, and (for execute) the answer."""

    result: dict[str, Any]
    outcome: Outcome
    summary: str
    sql: str | None = None  # execute: the SQL as run (after the role's rewrite)
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated: bool = False
    meta: dict[str, Any] = field(default_factory=dict)  # for the trace, not the model: tip ids, column profiles


def error_text(err: EngineError) -> str:
    return err.formatted()


class Toolbox:
    """The tools bound to one database, one executor, one role and one run's guards."""

    def __init__(self, layer: Layer, executor: SqlExecutor, guards: RunGuards, *, role: str | None = None,
                 max_rows: int = 1000, preview_rows: int = 5, query_timeout_s: float = 30.0,
                 extra_tools: Sequence[str] = (), tips: TipRetriever | None = None,
                 profiler: Profiler | None = None) -> None:
        self.layer = layer
        self.executor = executor
        self.guards = guards
        self.role = role
        self.role_obj = layer.role(role)
        self.max_rows = max_rows
        self.preview_rows = preview_rows
        self.query_timeout_s = query_timeout_s
        self.extra_tools = tuple(extra_tools)
        self.explorer = self._explorer() if self.extra_tools else None
        self.tips = tips  # tips for compile results (agent/tips); None: off
        self.profiler = profiler  # profile warnings for compile results (agent/profiling.py); None: off

    def _explorer(self) -> Any:
        """The exploration tools (spec section 7); tables they show become usable in the final SQL."""
        from .explore import ExploreLimits, Explorer
        from .guards import bare_sql, table_key

        def seen(table: Any) -> None:
            self.guards.seen.setdefault(table_key(table), bare_sql(table, self.layer.dialect))

        limits = ExploreLimits(timeout_s=self.query_timeout_s, python_enabled="python" in self.extra_tools)
        return Explorer(self.layer, self.executor, role=self.role, limits=limits, on_table=seen)

    def call_explore(self, call: ToolCall) -> ToolOutcome:
        try:
            result = self.explorer.call(call.name, call.arguments)
        except BackendUnavailable as err:
            return ToolOutcome({"error": error_text(err)}, "fatal", err.message)
        except EngineError as err:
            return ToolOutcome({"error": error_text(err)}, "error", err.message)
        return ToolOutcome(result, "ok", f"{call.name} answered")

    def call(self, call: ToolCall) -> ToolOutcome:
        if call.argument_error:
            return ToolOutcome({"error": f"the arguments of {call.name} could not be read: {call.argument_error}; "
                                         "send a JSON object"}, "error", "unreadable arguments")
        if call.name in self.extra_tools:
            return self.call_explore(call)
        handler = {GET_ELEMENTS: self.get_model_data_elements, CONVERT: self.convert_smq_to_sql, EXECUTE: self.execute}.get(call.name)
        if handler is None:
            return ToolOutcome({"error": f"unknown tool '{call.name}'; the tools are {', '.join(TOOL_NAMES + self.extra_tools)}"}, "error",
                               f"unknown tool {call.name}")
        return handler(call.arguments)

    # -- getModelDataElements ---------------------------------------------------------------
    def get_model_data_elements(self, args: dict[str, Any]) -> ToolOutcome:
        models = args.get("models")
        if isinstance(models, str):
            models = [models]
        if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
            return ToolOutcome({"error": 'getModelDataElements takes {"models": ["ModelName", ...]}'}, "error", "bad arguments")
        try:
            result = self.layer.elements(models, self.role)
        except EngineError as err:
            return ToolOutcome({"error": error_text(err)}, "error", err.message)
        counts = sum(len(m["dimensions"]) + len(m["measures"]) + len(m["metrics"]) for m in result["models"])
        return ToolOutcome(result, "ok", f"{len(result['models'])} model(s), {counts} element(s)")

    # -- convertSmqToSql --------------------------------------------------------------------
    def convert_smq_to_sql(self, args: dict[str, Any]) -> ToolOutcome:
        smq = args.get("smq")
        if isinstance(smq, str):  # models often send the object as a JSON string
            try:
                smq = json.loads(smq)
            except json.JSONDecodeError as exc:
                return ToolOutcome({"error": f"smq is not valid JSON: {exc}"}, "error", "smq is not JSON")
        if not isinstance(smq, dict):
            return ToolOutcome({"error": 'convertSmqToSql takes {"smq": {"metrics": [...], ...}}'}, "error", "bad arguments")
        if not self.guards.take_smq_call():
            return ToolOutcome({"error": f"the budget of {self.guards.max_smq_calls} convertSmqToSql calls is used up; "
                                         "compose your final SQL from what you have seen and call execute"},
                               "refused", "SMQ budget used up")
        dialect = self.layer.dialect
        try:
            tree = self.layer.compile_expression(smq, dialect, self.role)
        except InternalError as err:
            log.warning("compiler internal error in an agent run: %s", err.message)
            return ToolOutcome({"error": f"the compiler failed on this SMQ ({err.message}); try another formulation"},
                               "error", "compiler internal error")
        except EngineError as err:
            return ToolOutcome({"error": error_text(err)}, "error", err.message)
        self.guards.note_compiled(tree)
        sql = tree.sql(dialect=dialect, pretty=True)
        result: dict[str, Any] = {"sql": sql}
        page = paginate(tree, self.preview_rows, probe=False).run
        try:
            rows = self.executor.execute(page.sql(dialect=dialect), max_rows=self.preview_rows, timeout_s=self.query_timeout_s)
        except EngineError as err:  # the SQL is valid; only the preview failed
            result.update(preview=None, preview_error=error_text(err))
            outcome = ToolOutcome(result, "ok", f"compiled; preview failed: {err.message}")
        else:
            result["preview"] = {"columns": rows.columns, "rows": rows.rows[: self.preview_rows]}
            outcome = ToolOutcome(result, "ok", f"compiled; preview {len(result['preview']['rows'])} row(s)")
        self._annotate(outcome, smq, tree)
        return outcome

    def _annotate(self, outcome: ToolOutcome, smq: dict[str, Any], tree: Any) -> None:
        """Tips and profile warnings for a compiled SMQ (each switched per run; both cheap, neither can fail it)."""
        if self.tips is not None:
            found = self.tips.retrieve(tree, smq, "compile")
            if found:
                outcome.result["tips"] = render_tips(found)
                outcome.meta["tips"] = [t.id for t in found]
        if self.profiler is not None:
            report = self.profiler.inspect(self._unrestricted(smq, tree))
            if report.warnings:
                outcome.result["warnings"] = report.warnings[:MAX_WARNINGS]
            if report.profiles:
                outcome.meta["profiles"] = report.profiles

    def _unrestricted(self, smq: dict[str, Any], tree: Any) -> Any:
        """The SMQ compiled without the role, to find the physical columns to profile: a role wraps its tables in
        filtered subqueries, which hide them from the column search. The profiling queries apply the role."""
        if self.role is None:
            return tree
        try:
            return self.layer.compile_expression(smq, self.layer.dialect, None)
        except EngineError:
            return tree

    # -- execute ------------------------------------------------------------------------------
    def execute(self, args: dict[str, Any]) -> ToolOutcome:
        sql = args.get("sql")
        if not isinstance(sql, str) or not sql.strip():
            return ToolOutcome({"error": 'execute takes {"sql": "SELECT ..."}'}, "error", "bad arguments")
        try:
            tree = self.guards.check_final(sql)
        except GuardRefusal as err:
            return ToolOutcome({"error": error_text(err)}, "refused", err.message)
        except ReadOnlyViolation as err:
            return ToolOutcome({"error": f"execute refused: {error_text(err)}"}, "refused", err.message)
        except EngineError as err:  # does not parse: a repair like a failed run
            return ToolOutcome({"error": error_text(err)}, "failed", err.message)
        try:
            rewritten = apply_role_to_sql(tree, self.layer.semantic, self.layer.graph, self.role_obj)
        except EngineError as err:
            return ToolOutcome({"error": error_text(err)}, "refused", err.message)
        run_sql = policy_for(self.layer.semantic).render(rewritten)  # what was checked, never the model's text
        try:
            result = self.executor.execute(run_sql, max_rows=self.max_rows, timeout_s=self.query_timeout_s)
        except BackendUnavailable as err:
            return ToolOutcome({"error": error_text(err)}, "fatal", err.message)
        except EngineError as err:
            return ToolOutcome({"error": f"the database rejected the query: {error_text(err)}"}, "failed", err.message)
        body = {"columns": result.columns, "rows": result.rows, "row_count": result.row_count, "truncated": result.truncated}
        return ToolOutcome(body, "answered", f"{result.row_count} row(s){' (truncated)' if result.truncated else ''}",
                           sql=sql, columns=result.columns, rows=result.rows, truncated=result.truncated)
