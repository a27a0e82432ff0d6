"""One declaration per tool — name, description, arguments, handler — used by every surface.

The loop (agent/tools.py `Toolbox`), REST (service/routes/tools.py) and MCP (service/mcp/tools.py) list and
run tools only through this registry. A tool's arguments are a pydantic model: its JSON schema (generated,
never written by hand) is what every provider, REST's tool listing and MCP's `tools/list` show, and the same
model parses a call's arguments before the handler sees them, so declaration and handler cannot drift apart
(tests/agent/test_every_tool.py calls every tool on every surface with arguments generated from its schema).

Descriptions of the three core tools and the loop's own tools come from prompts/tools.yml (`<tool>` and
`<tool>.<argument>`), the exploration tools' from their declarations here. Whether a tool is offered at all
is its `available` predicate over what the surface switched on (`Offer`), e.g. `python`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema

from engine.errors import EngineError, Location, QueryError, nearest
from engine.resolve.filter_schema import FILTER
from smq_db.executors import BackendUnavailable

from .prompts import tool_descriptions
from .providers.base import ToolSpec

# ok: exploration answered; error: the call was wrong (fix and retry); refused: a rule of the run was
# broken; failed: the database rejected the final SQL (a repair); answered: the run is over; fatal: stop;
# rejected: the final SQL ran but its result looks wrong (two-tier repair); paused: waiting for the user.
Outcome = Literal["ok", "error", "refused", "failed", "answered", "fatal", "rejected", "paused"]
FAILED_OUTCOMES = ("error", "refused", "failed", "fatal")  # a surface reports these as errors (MCP `isError`)


class ToolError(QueryError):
    """The call was wrong (arguments, unknown table or column): fix it and call again."""

    code = "tool_error"


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


def error_outcome(err: EngineError, outcome: Outcome = "error", prefix: str = "") -> ToolOutcome:
    """An engine error as a tool result: the one error shape (`EngineError.tool_error()`)."""
    result = err.tool_error()
    if prefix:
        result["error"] = prefix + result["error"]
    return ToolOutcome(result, outcome, err.message)


# -- argument types: what the schema says, parsed as leniently as models write them ---------------------------
def _text(value: Any) -> Any:
    """A string, as declared; whether it names something (a table, a column, SQL) is the handler's domain error."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def _optional_text(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def _whole_number(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise ValueError("must be a whole number")
    return int(value)


def _names(value: Any) -> Any:
    """A list of names; one name alone is taken as a list of one (models often send it so)."""
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be a list of strings")
    return value


def _terms(value: Any) -> Any:
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not value or not all(isinstance(t, (str, int, float)) for t in value):
        raise ValueError("must be a non-empty list of strings")
    terms = [str(t) for t in value]
    return [t for t in terms if t] or terms  # empty terms add nothing beside others; alone, "" matches any row


def _json_object(value: Any) -> Any:
    """The SMQ object; a JSON string of one is decoded (models often send the object as a string)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError('must be a JSON object such as {"metrics": [...], ...}')
    return value


Text = Annotated[str, BeforeValidator(_text)]
OptionalText = Annotated[str | None, BeforeValidator(_optional_text)]
WholeNumber = Annotated[int | None, BeforeValidator(_whole_number)]
Names = Annotated[list[str], BeforeValidator(_names)]
Terms = Annotated[list[str], BeforeValidator(_terms), Field(min_length=1)]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown keys are ignored (a model's extra keys must not fail a call)."""

    model_config = ConfigDict(extra="ignore")


_NAMES = "measures (Model__measure) or metrics (bare names) to compute"


class SmqShape(BaseModel):
    """The SMQ as declared to models; the engine checks the object itself (with field paths in its errors)."""

    metrics: list[str] = Field(description=_NAMES)
    group_by: list[str] | None = Field(None, description="dimensions to group by; time dimensions may end in "
                                                         "__day/__week/__month/__quarter/__year")
    filters: Annotated[list[Any] | None, WithJsonSchema({"type": "array", "items": FILTER})] = Field(
        None, description="conditions on rows: SQL boolean expressions over element names, or structured filters "
                          '{"member", "operator", "values"} (and {"and": [...]} / {"or": [...]} groups of them)')
    order_by: list[str] | None = Field(None, description="output names; prefix with - for descending")
    limit: int | None = Field(None, description="most rows to return")


# -- the three core tools (docs/agent.md, The three tools) --------------------------------------------------------------------
class GetModelDataElementsArgs(ToolArgs):
    models: Names | None = None  # optional as in REST `/elements`: omitted or empty, every model


class ConvertSmqToSqlArgs(ToolArgs):
    smq: Annotated[dict[str, Any], BeforeValidator(_json_object), WithJsonSchema(SmqShape.model_json_schema())]


class ExecuteArgs(ToolArgs):
    sql: Text


class ExecuteInRunArgs(ExecuteArgs):
    """execute as the agent's loop declares it: plus the assumptions the SQL makes (reported with the answer)."""

    assumptions: Names | None = None


# -- the exploration tools (docs/directives.md, The exploration tools) -----------------------------------------------------------------------
_TABLE = "physical table name, as listTables shows it"
_COLUMN = "column name, as describeTable shows it"


class ListModelsArgs(ToolArgs):
    question: OptionalText = Field(None, description="the question being answered (optional)")


class NoArgs(ToolArgs):
    pass


class TableArgs(ToolArgs):
    table: Text = Field(description=_TABLE)


class ColumnArgs(TableArgs):
    column: Text = Field(description=_COLUMN)


class ColValuesArgs(ColumnArgs):
    limit: WholeNumber = Field(None, description="most values to return (default 20, at most 100)")


class FindRowsArgs(ColumnArgs):
    terms: Terms = Field(description="text to look for")


class ReadQueryArgs(ToolArgs):
    sql: Text = Field(description="one SELECT in the database's dialect")


_PYTHON_DATA = {"type": "object", "properties": {"columns": {"type": "array", "items": {"type": "string"}},
                                                 "rows": {"type": "array", "items": {"type": "array"}}}}


class PythonArgs(ToolArgs):
    code: Text
    data: Annotated[dict[str, Any] | None, WithJsonSchema(_PYTHON_DATA)] = Field(
        None, description="rows handed to the code as data.json and data.csv (default: the last readQuery result)")


# -- the loop's own tools (clarification pool, two-tier repair) ---------------------------------------------------
class AskUserArgs(ToolArgs):
    question: Text


class DropQuestionArgs(ToolArgs):
    question: Text
    reason: Text


class ReplanArgs(ToolArgs):
    reason: Text


# -- the registry ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Offer:
    """What a surface switched on; a tool's `available` predicate decides from it whether the tool is offered."""

    python_enabled: bool = False
    role: str | None = None  # the caller's access role: the python tool is never offered to one


def _always(offer: Offer) -> bool:
    return True


def python_available(offer: Offer) -> bool:
    """The python tool: only when switched on, for a caller without a role, on a host that can isolate it."""
    from .sandbox import python_tool_offered

    return python_tool_offered(offer.python_enabled, offer.role)


Group = Literal["paper", "explore", "loop"]
Handler = Callable[[Any, Any], Any]  # (Toolbox for paper tools, Explorer for exploration tools; parsed args) -> result


@dataclass(frozen=True)
class Tool:
    """One tool: its exact name, description, argument model (the schema) and handler.

    Paper tools' handlers take the Toolbox and return a ToolOutcome; exploration tools' take the Explorer and
    return the JSON result (or raise an EngineError); the loop's own tools (`handler=None`) are run by the loop.
    """

    name: str
    group: Group
    arguments: type[ToolArgs]
    description: str = ""  # used when prompts/tools.yml has none
    handler: Handler | None = None
    available: Callable[[Offer], bool] = _always

    def describe(self) -> str:
        return tool_descriptions().get(self.name, self.description)

    def schema(self) -> dict[str, Any]:
        return _schema(self.name, self.arguments)

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.describe(), self.schema())

    def parse(self, arguments: Mapping[str, Any]) -> Any:
        """The call's arguments as the argument model, or a ToolError naming the argument and what it takes."""
        if not isinstance(arguments, Mapping):
            raise ToolError(f"{self.name} takes a JSON object of arguments")
        try:
            return self.arguments.model_validate(dict(arguments))
        except ValidationError as exc:
            raise _argument_error(self, exc) from None


def _argument_error(tool: Tool, exc: ValidationError) -> ToolError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or None
    what = _what(tool.schema()["properties"].get(str(first["loc"][0]), {})) if first["loc"] else "a JSON object"
    if first["type"] == "missing":
        message = f"'{where}' is required ({what})"
    else:
        reason = str(first.get("ctx", {}).get("error", first["msg"]))
        message = f"'{where}' {reason}" if first["type"] == "value_error" else f"'{where}': {first['msg']} ({what})"
    return ToolError(message, location=Location(field=where))


def _what(prop: Mapping[str, Any]) -> str:
    return {"string": "a string", "array": "a list of strings", "integer": "a whole number",
            "object": "a JSON object"}.get(str(prop.get("type")), "a value")


def _declare(name: str, handler: Handler | None, args: type[ToolArgs], group: Group, description: str = "",
          available: Callable[[Offer], bool] = _always) -> Tool:
    return Tool(name, group, args, description, handler, available)


# Names are docs/agent.md and docs/directives.md; every surface uses these exactly.
GET_ELEMENTS, CONVERT, EXECUTE = "getModelDataElements", "convertSmqToSql", "execute"
LIST_MODELS, LIST_TABLES, DESCRIBE_TABLE, GET_JOIN_INFO = "listModels", "listTables", "describeTable", "getJoinInfo"
GET_COL_VALUES, FIND_ROWS, PROFILE_COLUMN, READ_QUERY, PYTHON = ("getColValues", "findRows", "profileColumn",
                                                                  "readQuery", "python")
# One naming style on every surface (camelCase, as getModelDataElements and convertSmqToSql, docs/agent.md): the names
# the exploration tools had before are still answered to, and the other spelling of any tool too (get_model_data_elements)
OLD_NAMES = {"list_tables": LIST_TABLES, "describe_table": DESCRIBE_TABLE, "get_join_info": GET_JOIN_INFO,
             "get_col_values": GET_COL_VALUES, "find_rows": FIND_ROWS, "profile_column": PROFILE_COLUMN,
             "read_query": READ_QUERY}
ASK_USER, DROP_QUESTION, REPLAN = "ask_user", "drop_question", "replan"

TOOLS: dict[str, Tool] = {t.name: t for t in (
    _declare(GET_ELEMENTS, lambda box, a: box.get_model_data_elements(a.models), GetModelDataElementsArgs, "paper"),
    _declare(CONVERT, lambda box, a: box.convert_smq_to_sql(a.smq), ConvertSmqToSqlArgs, "paper"),
    _declare(EXECUTE, lambda box, a: box.execute(a.sql), ExecuteArgs, "paper"),
    _declare(LIST_MODELS, lambda ex, a: ex.list_models(a.question), ListModelsArgs, "explore",
          "Every semantic model with its description. With a question, each model carries directive "
          "relevant|irrelevant and a short reason: start from the relevant ones."),
    _declare(LIST_TABLES, lambda ex, a: ex.list_tables(), NoArgs, "explore",
          "The physical tables you may read, with the semantic model wrapping each."),
    _declare(DESCRIBE_TABLE, lambda ex, a: ex.describe_table(a.table), TableArgs, "explore",
          "Columns of a physical table with types, nullability, primary and foreign keys (read from the database's "
          "catalog)."),
    _declare(GET_JOIN_INFO, lambda ex, a: ex.get_join_info(a.table), TableArgs, "explore",
          "How a table joins others: the layer's declared joins (with their ON conditions, which may clean dirty "
          "keys) and the database's foreign keys."),
    _declare(GET_COL_VALUES, lambda ex, a: ex.get_col_values(a.table, a.column, a.limit), ColValuesArgs, "explore",
          "Distinct values of a column, most frequent first, with counts (use it to learn exact spellings before "
          "filtering)."),
    _declare(FIND_ROWS, lambda ex, a: ex.find_rows(a.table, a.column, a.terms), FindRowsArgs, "explore",
          "Rows whose column contains any of the terms (case-insensitive substring match)."),
    _declare(PROFILE_COLUMN, lambda ex, a: ex.profile_column(a.table, a.column), ColumnArgs, "explore",
          "A column's profile: row count, NULL share, distinct count, min, max and top values."),
    _declare(READ_QUERY, lambda ex, a: ex.read_query(a.sql), ReadQueryArgs, "explore",
          "Run one read-only exploratory SELECT (at most 50 rows). Not the final answer: finish with execute."),
    _declare(PYTHON, lambda ex, a: ex.python(a.code, a.data), PythonArgs,
          "explore",
          "Run Python code (standard library only) in an isolated sandbox: no network, no database, no files but its "
          "working directory, CPU/memory/time/output limits. The data is in data.json (and data.csv when it has "
          "columns and rows) in the working directory; print what you need.",
          available=python_available),
    _declare(ASK_USER, None, AskUserArgs, "loop"),
    _declare(DROP_QUESTION, None, DropQuestionArgs, "loop"),
    _declare(REPLAN, None, ReplanArgs, "loop"),
)}

PAPER_TOOLS = tuple(n for n, t in TOOLS.items() if t.group == "paper")
EXPLORE_TOOLS = tuple(n for n, t in TOOLS.items() if t.group == "explore")


def canonical(name: str) -> str:
    """A tool's name as declared, from any spelling a caller uses: `read_query` (its old name) -> `readQuery`,
    `get_model_data_elements` -> `getModelDataElements`; an unknown name comes back as it is."""
    if name in TOOLS:
        return name
    if name in OLD_NAMES:
        return OLD_NAMES[name]
    folded = name.replace("_", "").lower()
    return next((n for n in TOOLS if n.replace("_", "").lower() == folded), name)


def tool(name: str, among: tuple[str, ...] | None = None) -> Tool:
    """The declared tool `name` (restricted to `among`; any spelling: `canonical`), or a ToolError `unknown_tool`
    with the nearest names."""
    names = among if among is not None else tuple(TOOLS)
    name = canonical(name)
    if name not in names:
        raise ToolError(f"unknown tool '{name}'", code="unknown_tool", suggestions=nearest(name, names))
    return TOOLS[name]


def offered(names: tuple[str, ...] | list[str], offer: Offer) -> tuple[str, ...]:
    """The tools among `names` this surface offers (each tool's availability predicate)."""
    return tuple(n for n in names if TOOLS[n].available(offer))


def specs(names: tuple[str, ...] | list[str]) -> list[ToolSpec]:
    """The declarations of the named tools, in that order."""
    return [TOOLS[n].spec() for n in names]


def execute_in_run_spec() -> ToolSpec:
    """execute as the loop declares it: the `sql` of docs/agent.md's execute plus optional `assumptions`."""
    return ToolSpec(EXECUTE, TOOLS[EXECUTE].describe(), _schema(EXECUTE, ExecuteInRunArgs))


def run_explore(explorer: Any, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """One exploration call: parse the arguments with the tool's model, then its handler (raises EngineError)."""
    declared = tool(name, EXPLORE_TOOLS)
    return declared.handler(explorer, declared.parse(arguments))  # type: ignore[misc]


def run(box: Any, name: str, arguments: Mapping[str, Any], names: tuple[str, ...]) -> ToolOutcome:
    """One call as every surface runs it (through the Toolbox): never raises for the caller's mistakes."""
    try:
        declared = tool(name, names)
        if declared.handler is None:
            raise ToolError(f"{name} is run by the agent's loop only", code="unknown_tool")
        args = declared.parse(arguments)
        if declared.group == "paper":
            return declared.handler(box, args)
        result = declared.handler(box.explorer, args)
    except BackendUnavailable as err:
        return error_outcome(err, "fatal")
    except EngineError as err:
        return error_outcome(err)
    return ToolOutcome(result, "ok", f"{name} answered")


# -- JSON schemas from the argument models ------------------------------------------------------------------------
@cache
def _schema(name: str, model: type[ToolArgs]) -> dict[str, Any]:
    """The argument model's JSON schema as providers take it: inline (no $ref), no titles, optional fields plain,
    descriptions from prompts/tools.yml (`<tool>.<argument>`) where it has them."""
    raw = model.model_json_schema()
    raw.pop("description", None)  # a model's docstring is for readers of this file, not for the model
    schema = _clean(raw, raw.pop("$defs", {}))
    texts = tool_descriptions()
    for prop, body in schema.get("properties", {}).items():
        if f"{name}.{prop}" in texts:
            body["description"] = texts[f"{name}.{prop}"]
    return schema


def _clean(node: Any, defs: dict[str, Any], in_properties: bool = False) -> Any:
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if in_properties:  # a mapping of property names: keep every key
        return {key: _clean(value, defs) for key, value in node.items()}
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    options = node.get("anyOf")
    if options and {"type": "null"} in options and len(options) == 2:
        rest = next(o for o in options if o != {"type": "null"})
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, **rest}
    return {key: _clean(value, defs, key == "properties") for key, value in node.items()
            if key != "title" and not (key == "default" and value is None)}
