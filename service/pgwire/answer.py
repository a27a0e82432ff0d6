"""Answering one statement of a session (in a worker thread): session chatter, a catalog read, or a semantic query.

A semantic query is translated to an SMQ (engine/sql_api) and run exactly as `/query` runs it: the
caller's role, `Layer.compile` or `paged_sql` for a page, `executor_for` (the byte cap, the role's
withheld errors), the SMQ_MAX_ROWS cap and the query timeout. A catalog read runs over the catalog
tables of the caller's role (local_db.py). Nothing else reaches the warehouse.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from sqlglot import exp

from engine.errors import nearest
from engine.paging import paged_sql
from engine.sql_api import catalog_sql, statements
from engine.sql_api.catalog import SERVER_VERSION, settings as default_settings
from engine.sql_api.errors import UNDEFINED_OBJECT, SqlApiError, unsupported
from engine.sql_api.tables import tables as layer_tables
from engine.sql_api.translate import SemanticQuery, Translation, Wrapped, translate
from engine.sql_api.values import Parameters

from ..deps import Database, ServiceState, executor_for
from ..routes.health import service_version
from ..routes.query import check_limit
from .local_db import LocalResult, catalog_for, evaluate_over
from .values import type_size

VERSION = f"PostgreSQL {SERVER_VERSION} (smq semantic layer {service_version()}; SQL API over the PostgreSQL protocol)"
_REPORTED = ("application_name", "client_encoding", "DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes",
             "standard_conforming_strings", "server_encoding", "server_version", "is_superuser", "session_authorization")


@dataclass
class Answer:
    """What a statement answers: its columns (None: no rows), rows, command tag, notices, reported settings."""

    columns: list[tuple[str, str]] | None = None  # (name, PostgreSQL type name)
    rows: list[list[Any]] = field(default_factory=list)
    tag: str = "SELECT"
    notices: list[str] = field(default_factory=list)
    reported: dict[str, str] = field(default_factory=dict)  # ParameterStatus to send (a SET of a reported setting)
    transaction: str | None = None  # "begin" | "commit" | "rollback"

    def field_sizes(self) -> list[int]:
        return [type_size(t) for _, t in self.columns or ()]


@dataclass
class Context:
    """One session as its statements see it."""

    state: ServiceState
    database: Database
    user: str
    pid: int
    settings: dict[str, str]

    @classmethod
    def new(cls, state: ServiceState, database: Database, user: str, pid: int, startup: dict[str, str]) -> Context:
        values = default_settings(database.name, user)
        for key, value in startup.items():
            if key not in ("user", "database", "options", "replication"):
                values[_setting_name(key, values)] = value
        return cls(state, database, user, pid, values)

    @property
    def tables(self) -> Any:
        return layer_tables(self.database.layer, self.database.role)


def _setting_name(name: str, known: dict[str, str]) -> str:
    folded = {k.lower(): k for k in known}
    return folded.get(name.lower(), name.lower())


def classify(sql: str) -> statements.Statement:
    return statements.classify(sql)


def answer(ctx: Context, statement: statements.Statement, params: Parameters | None) -> Answer:
    """The answer of one classified statement with its parameters bound."""
    if statement.kind == "empty":
        return Answer(tag="")
    if statement.kind == "session":
        return session_command(ctx, statement)
    tree = statement.tree
    assert tree is not None
    if statements.is_catalog_query(tree):
        return _catalog(ctx, _bind(tree, params))
    if not isinstance(tree, exp.Select):
        raise unsupported("UNION, INTERSECT and EXCEPT are not supported over the layer's tables; send one SELECT")
    translation = translate(tree, ctx.tables, ctx.database.layer.dialect, params)
    return run_translation(ctx, translation, params)


def describe(ctx: Context, statement: statements.Statement, param_count: int) -> tuple[list[str], Answer | None]:
    """(parameter types, the answer's columns) of a statement before its parameters are bound."""
    types: dict[int, str] = {}
    if statement.kind != "select" or statement.tree is None:
        return ["text"] * param_count, None
    tree = statement.tree
    numbers = sorted(_parameter_numbers(tree))
    count = max([param_count, *numbers]) if numbers else param_count
    if statements.is_catalog_query(tree):
        result = _catalog(ctx, _bind(tree, {n: None for n in range(1, count + 1)}))
        return ["text"] * count, Answer(result.columns)
    if not isinstance(tree, exp.Select):
        raise unsupported("UNION, INTERSECT and EXCEPT are not supported over the layer's tables; send one SELECT")
    def sink(number: int, pg_type: str) -> None:
        types.setdefault(number, pg_type)

    translation = translate(tree, ctx.tables, ctx.database.layer.dialect, None, sink=sink)
    params = [types.get(n, "text") for n in range(1, count + 1)]
    if isinstance(translation, Wrapped):  # the outer query's columns: it runs over no rows
        settings = ctx.state.settings
        inner = [(o.name, o.pg_type) for o in translation.inner.outputs]
        outer = _bind(translation.outer, {n: None for n in range(1, count + 1)})
        empty = evaluate_over(translation.inner_name, inner, [], outer, 1, settings.query_timeout_s)
        return params, Answer(list(zip(empty.columns, empty.pg_types)))
    return params, Answer([(o.name, o.pg_type) for o in translation.outputs])


def _parameter_numbers(tree: exp.Expression) -> set[int]:
    from engine.sql_api.values import parameter_number

    return {n for node in tree.walk() if (n := parameter_number(cast(exp.Expression, node))) is not None}


def _bind(tree: exp.Expression, params: Parameters | None) -> exp.Expression:
    """A catalog query with its `$n` replaced by literals (built as sqlglot nodes: nothing is spliced)."""
    from engine.sql_api.values import parameter_number

    if not params:
        return tree

    def replace(node: exp.Expression) -> exp.Expression:
        number = parameter_number(node)
        if number is None:
            return node
        if number not in params:
            raise SqlApiError(f"there is no parameter ${number}", "42P02")
        value = params[number]
        if value is None:
            return exp.null()
        if isinstance(value, bool):
            return exp.Boolean(this=value)
        if isinstance(value, (int, float)):
            return exp.Literal.number(value)
        return exp.Literal.string(str(value))

    return tree.copy().transform(replace)


# -- catalog ---------------------------------------------------------------------------------------------------
def _catalog(ctx: Context, tree: exp.Expression) -> Answer:
    layer = ctx.database.layer
    database = catalog_for((id(layer), layer.version, ctx.database.role), ctx.database.name, ctx.tables)
    session = catalog_sql.Session(ctx.database.name, ctx.user, ctx.pid, VERSION)
    rewritten = catalog_sql.rewrite(tree, session, database.known)
    settings = ctx.state.settings
    result = database.query(rewritten, settings.max_rows, settings.query_timeout_s)
    return _local_answer(result, settings.max_rows)


def _local_answer(result: LocalResult, max_rows: int) -> Answer:
    out = Answer(list(zip(result.columns, result.pg_types)), result.rows, f"SELECT {len(result.rows)}")
    if result.truncated:
        out.notices.append(f"the answer was cut at {max_rows:,} rows (SMQ_MAX_ROWS); add a LIMIT or filters")
    return out


# -- semantic ----------------------------------------------------------------------------------------------------
def run_translation(ctx: Context, translation: Translation, params: Parameters | None = None) -> Answer:
    if isinstance(translation, Wrapped):
        return _wrapped(ctx, translation, params)
    rows, notices = run_semantic(ctx, translation)
    out = Answer([(o.name, o.pg_type) for o in translation.outputs], rows, f"SELECT {len(rows)}", notices)
    return out


def run_semantic(ctx: Context, query: SemanticQuery, *, whole: bool = False) -> tuple[list[list[Any]], list[str]]:
    """The rows of the SMQ, as `/query` returns them, projected onto the query's output columns."""
    state, database = ctx.state, ctx.database
    layer = database.layer
    settings = state.settings
    check_limit(query.limit, settings.max_limit, "limit")
    check_limit(query.offset, settings.max_limit, "offset")
    max_rows = settings.max_rows
    executor = executor_for(state, database)
    from smq_db.compiled import compiled_page, compiled_sql
    from smq_db.rollup_runs import count, rollups_of

    if query.limit is None and not query.offset:
        # with rollups: answered from one where provably the same (docs/rollups.md), as /query is
        sql = compiled_sql(layer, query.smq, database.role) if layer.rollups else \
            layer.compile(query.smq, dialect=layer.dialect, role=database.role)
        run = sql
        result = executor.execute(sql, max_rows=max_rows, timeout_s=settings.query_timeout_s)
    else:
        limit = max_rows if query.limit is None else min(query.limit, max_rows)
        page = compiled_page(layer, query.smq, database.role, limit, query.offset) if layer.rollups else \
            paged_sql(layer, query.smq, database.role, limit, query.offset)
        run = page.run
        result = executor.execute(page.run, max_rows=page.size, timeout_s=settings.query_timeout_s)
    if layer.rollups:
        count(bool(rollups_of(run)))
    index = _column_index(result.columns, query.sources)
    picks = [index[o.source] for o in query.outputs]
    rows = [[row[i] for i in picks] for row in result.rows]
    notices = []
    if result.truncated and (query.limit is None or query.limit > max_rows):
        if whole:
            raise SqlApiError(f"the subquery's answer has more than {max_rows:,} rows (SMQ_MAX_ROWS), too many to "
                              "evaluate the outer query over; add filters or aggregate in the subquery", "54000")
        notices.append(f"the answer was cut at {max_rows:,} rows (SMQ_MAX_ROWS); page it with LIMIT and OFFSET")
    return rows, notices


def _column_index(columns: list[str], sources: tuple[str, ...]) -> dict[str, int]:
    by_name = {name: i for i, name in enumerate(columns)}
    out = {}
    for position, source in enumerate(sources):
        base = source.split(".")[-1]
        out[source] = by_name.get(source, by_name.get(base, position))
    return out


def _wrapped(ctx: Context, wrapped: Wrapped, params: Parameters | None) -> Answer:
    rows, _ = run_semantic(ctx, wrapped.inner, whole=True)
    settings = ctx.state.settings
    columns = [(o.name, o.pg_type) for o in wrapped.inner.outputs]
    outer = _bind(wrapped.outer, params)  # the outer query's own $n, as literals built by sqlglot
    result = evaluate_over(wrapped.inner_name, columns, rows, outer, settings.max_rows, settings.query_timeout_s)
    return _local_answer(result, settings.max_rows)


# -- session chatter -----------------------------------------------------------------------------------------------
def session_command(ctx: Context, statement: statements.Statement) -> Answer:
    words = statement.words
    first = words[0]
    if first == "SHOW":
        return _show(ctx, statement.text)
    if first == "SET":
        return _set(ctx, statement.text)
    if first == "RESET":
        return Answer(tag="RESET")
    if first in ("BEGIN", "START"):
        return Answer(tag="BEGIN", transaction="begin")
    if first in ("COMMIT", "END"):
        return Answer(tag="COMMIT", transaction="commit")
    if first in ("ROLLBACK", "ABORT"):
        if len(words) > 1 and words[1] == "TO" or len(words) > 2 and words[2] == "TO":
            return Answer(tag="ROLLBACK", transaction="rollback_to")
        return Answer(tag="ROLLBACK", transaction="rollback")
    if first == "DISCARD":
        return Answer(tag="DISCARD " + (words[1] if len(words) > 1 else "ALL"))
    if first == "DEALLOCATE":
        return Answer(tag="DEALLOCATE" + (" ALL" if "ALL" in words else ""))
    if first in ("SAVEPOINT", "RELEASE", "LISTEN", "UNLISTEN"):
        return Answer(tag=first)
    if first == "CLOSE":
        return Answer(tag="CLOSE CURSOR" + (" ALL" if "ALL" in words else ""))
    raise unsupported(f"{first} is not supported (no server-side cursors or SQL-level prepared statements); "
                      "use the extended query protocol's Parse/Bind/Execute")


def _words_after(text: str, count: int) -> list[str]:
    tokens = text.split()
    return tokens[count:]


def _show(ctx: Context, text: str) -> Answer:
    rest = " ".join(_words_after(text.rstrip(";"), 1)).strip()
    name = rest.lower()
    if name == "all":
        rows = [[k, v, ""] for k, v in sorted(ctx.settings.items())]
        return Answer([("name", "text"), ("setting", "text"), ("description", "text")], rows, "SHOW")
    aliases = {"transaction isolation level": "transaction_isolation", "time zone": "TimeZone",
               "session authorization": "session_authorization"}
    key = aliases.get(name, rest.strip('"'))
    found = _setting_name(key, ctx.settings)
    if found not in ctx.settings:
        raise SqlApiError(f'unrecognized configuration parameter "{key}"', UNDEFINED_OBJECT,
                          suggestions=nearest(key, list(ctx.settings)))
    return Answer([(key.lower() if name not in aliases else key.lower(), "text")], [[ctx.settings[found]]], "SHOW")


def _set(ctx: Context, text: str) -> Answer:
    body = text.strip().rstrip(";")
    tokens = body.split(None, 1)
    rest = tokens[1] if len(tokens) > 1 else ""
    head = rest.split(None, 1)
    if head and head[0].upper() in ("SESSION", "LOCAL") and len(head) > 1:
        rest = head[1]
    upper = rest.upper()
    if upper.startswith(("TRANSACTION", "CHARACTERISTICS", "SESSION CHARACTERISTICS", "CONSTRAINTS", "ROLE")):
        return Answer(tag="SET")
    if upper.startswith("TIME ZONE"):
        name, value = "TimeZone", rest[len("TIME ZONE"):].strip()
    elif upper.startswith("NAMES"):
        name, value = "client_encoding", rest[len("NAMES"):].strip()
    else:
        sep = "=" if "=" in rest else " TO " if " TO " in upper else None
        if sep is None:
            raise SqlApiError(f"syntax error in SET: write SET name = value ({text.strip()})", "42601")
        index = rest.find("=") if sep == "=" else upper.find(" TO ")
        name = rest[:index].strip().strip('"')
        value = rest[index + len(sep):].strip()
    value = value.strip().strip("'").strip('"')
    key = _setting_name(name, ctx.settings)
    if key == "client_encoding" and value.upper().replace("-", "") not in ("UTF8", "UNICODE"):
        raise unsupported(f"client_encoding {value} is not supported: this server speaks UTF8")
    ctx.settings[key] = value
    reported = {key: value} if key in _REPORTED else {}
    return Answer(tag="SET", reported=reported)


def backend_pid() -> int:
    return os.getpid()


Runner = Callable[[], Answer]
