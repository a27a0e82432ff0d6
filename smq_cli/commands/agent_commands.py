"""`smq ask`: a question in, the agent's SQL, its result and the path of its trace out.

Exit codes: 0 answered; 1 the run ended without an answer (gave up, or the model failed: the trace
says why); 2 bad input (unknown database or role, bad flag value); 3 not configured (no model
provider, or the database cannot be opened); 4 internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import Layer, load_layers

from .engine_commands import add_models_dir, models_dir

EXIT_OK, EXIT_NO_ANSWER, EXIT_BAD_INPUT, EXIT_NOT_CONFIGURED = 0, 1, 2, 3
SHOWN_ROWS = 50


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="answer a question with the agent (explores the layer, then runs its own SQL)",
                       description="The agent explores the database's semantic layer (getModelDataElements, "
                                   "convertSmqToSql), composes SQL from the compiled building blocks and runs it. "
                                   "Model: $SMQ_PROVIDER (gemini | openai), $SMQ_MODEL, $GEMINI_API_KEY or "
                                   "$OPENAI_BASE_URL/$OPENAI_API_KEY; flags win.")
    add_models_dir(p)
    p.add_argument("--db", required=True, help="database name")
    p.add_argument("--json", action="store_true", help='print {"status", "sql", "columns", "rows", "trace", "tokens"}')
    p.add_argument("--provider", choices=["gemini", "openai"], help="model provider (default: $SMQ_PROVIDER, then gemini)")
    p.add_argument("--model", help="model name (default: $SMQ_MODEL)")
    p.add_argument("--role", help="run as this access role (row filters and hidden elements apply to every tool)")
    p.add_argument("--trace-dir", type=Path, help="folder for the trace files (default: $SMQ_TRACE_DIR, then ./traces)")
    p.add_argument("--max-turns", type=int, help="step budget (default 30)")
    p.add_argument("--tools", metavar="A,B,...", help="also switch on exploration tools (spec section 7): listModels, "
                   "list_tables, describe_table, get_join_info, get_col_values, find_rows, profile_column, read_query, "
                   "python (default: $SMQ_AGENT_TOOLS, else only the paper's three)")
    p.add_argument("question", help="the question, in plain language")
    p.set_defaults(func=cmd_ask)


def open_executor(layer: Layer) -> Any:
    """The database's executor, building the demo database on first use (as the service does)."""
    from service.executors import create_executor

    if layer.semantic.connection.get("demo"):
        from service.demo.build import ensure_demo

        ensure_demo(layer.semantic.directory)
    return create_executor(dict(layer.semantic.connection), base_dir=layer.semantic.directory, dialect=layer.dialect)


def cmd_ask(args: argparse.Namespace) -> int:
    from agent import AgentConfig, AgentConfigError, AgentNotConfigured, Hooks, make_provider, run_agent
    from service.executors import BackendUnavailable, ConfigError

    try:
        from agent.config import parse_tools

        config = AgentConfig.from_env(provider=args.provider, model=args.model, trace_dir=args.trace_dir,
                                      max_turns=args.max_turns, tools=parse_tools(args.tools) if args.tools else None)
    except AgentConfigError as err:
        print(f"smq: {err.formatted()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    layer = load_layers(models_dir(args))[args.db]  # unknown database: QueryError -> exit 2 in main
    layer.role(args.role)
    try:
        provider = make_provider(config)
    except AgentNotConfigured as err:
        print(f"smq: {err.message}", file=sys.stderr)
        return EXIT_NOT_CONFIGURED
    try:
        executor = open_executor(layer)
    except (BackendUnavailable, ConfigError, OSError) as err:
        print(f"smq: cannot open database '{layer.name}': {getattr(err, 'message', err)}", file=sys.stderr)
        return EXIT_NOT_CONFIGURED
    hooks = Hooks(on_turn=None if args.json else _progress)
    try:
        result = run_agent(layer, executor, provider, args.question, config, role=args.role, hooks=hooks)
    finally:
        executor.close()
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str))
    else:
        _print_result(result)
    return EXIT_OK if result.status == "answered" else EXIT_NO_ANSWER


def _progress(turn: Any) -> None:
    tool = turn.tool or "(no tool call)"
    print(f"turn {turn.index}: {tool} -> {turn.outcome}: {turn.summary}", file=sys.stderr, flush=True)


def _print_result(result: Any) -> None:
    if result.sql is not None:
        print(result.sql.strip())
        print()
        print(format_table(result.columns, result.rows))
        if result.truncated:
            print("(truncated at the row cap)")
    else:
        print(f"no answer ({result.status}): {result.reason}", file=sys.stderr)
    tokens = result.tokens
    print(f"\n{result.status} in {len(result.trace.turns)} turn(s), {tokens['total']} tokens", file=sys.stderr)
    if result.trace_path is not None:
        print(f"trace: {result.trace_path}", file=sys.stderr)


def format_table(columns: list[str], rows: list[list[Any]], limit: int = SHOWN_ROWS) -> str:
    """A plain aligned text table; numbers right-aligned, NULL spelt out."""
    shown = [["NULL" if v is None else str(v) for v in row] for row in rows[:limit]]
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(row[i], (int, float)) or row[i] is None for row in rows[:limit]) for i in range(len(columns))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True)).rstrip()

    out = [line(list(columns)), "  ".join("-" * w for w in widths)] + [line(r) for r in shown]
    if len(rows) > limit:
        out.append(f"... {len(rows) - limit} more row(s)")
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)
