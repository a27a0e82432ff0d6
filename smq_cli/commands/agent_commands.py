"""`smq ask`: a question in, the agent's SQL, its result and the path of its trace out.

Exit codes: 0 answered; 1 the run ended without an answer (gave up, or the model failed: the trace
says why); 2 bad input (unknown database or role, bad flag value); 3 not configured (no model
provider, or the database cannot be opened); 4 internal error.

Reasoning switches (docs/reasoning.md): `--tips/--no-tips`, `--profile/--no-profile`,
`--clarify/--no-clarify` (on by default here: the agent's questions are shown on the terminal and the
answer is read from stdin; at the end of input nobody answers and the agent states its assumption),
`--plans K` (plan voting) and `--repair-rounds N` (two-tier repair).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine

from ..exit_codes import ExitCode
from ..messages import error_line
from .engine_commands import add_models_dir, models_dir

if TYPE_CHECKING:
    from smq_db.executors import Executor

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
    p.add_argument("--tools", metavar="A,B,...", help="also switch on exploration tools (docs/directives.md, The exploration tools): listModels, "
                   "listTables, describeTable, getJoinInfo, getColValues, findRows, profileColumn, readQuery, "
                   "python (default: $SMQ_AGENT_TOOLS, else only the three core tools)")
    add_reasoning_flags(p, clarify_default="on")
    p.add_argument("question", help="the question, in plain language")
    p.set_defaults(func=cmd_ask)


def add_reasoning_flags(p: argparse.ArgumentParser, clarify_default: str = "off") -> None:
    """The reasoning switches (docs/reasoning.md); unset flags leave the environment's or the default's value."""
    on_off = argparse.BooleanOptionalAction
    p.add_argument("--tips", action=on_off, help="tips with compile results (default: on, or $SMQ_AGENT_TIPS)")
    p.add_argument("--profile", action=on_off, help="profile the columns a compiled query filters, groups or ranks on "
                   "and warn about traps (default: on, except on BigQuery and Snowflake; $SMQ_AGENT_PROFILE)")
    p.add_argument("--clarify", action=on_off, help="let the agent ask you questions (ask_user / drop_question); "
                   f"--no-clarify: it states its assumptions instead (default: {clarify_default})")
    p.add_argument("--plans", type=int, metavar="K", help="plan voting: K concurrent attempts, the majority answer wins "
                   "(default 1; costs K times the model calls)")
    p.add_argument("--repair-rounds", type=int, metavar="N", help="two-tier repair: how often a suspicious result goes "
                   "back for a fix or a new plan (default 3; 0 off)")


def reasoning_overrides(args: argparse.Namespace, clarify_default: bool | None = None) -> dict[str, Any]:
    """AgentConfig overrides from the flags; `clarify_default` applies when neither flag nor $SMQ_AGENT_CLARIFY says."""
    clarify = args.clarify
    if clarify is None and clarify_default is not None and not os.environ.get("SMQ_AGENT_CLARIFY"):
        clarify = clarify_default
    return {"tips": args.tips, "profile": args.profile, "clarify": clarify, "plans": args.plans,
            "repair_rounds": args.repair_rounds}


def terminal_answerer() -> Any:
    """Questions on stderr, answers from stdin; at the end of input (or an empty line) nobody answers."""
    from agent.clarify import CallbackAnswerer

    closed = False

    def ask(question: str) -> str | None:
        nonlocal closed
        if closed:
            return None
        print(f"\nThe agent asks: {question}\nYour answer (empty: let the agent decide): ", end="", file=sys.stderr, flush=True)
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):  # no stdin at all (closed, or a test runner's)
            line = ""
        if not line:
            closed = True
            print("\n(no input: the agent will state its assumption instead)", file=sys.stderr, flush=True)
            return None
        return line.strip() or None

    return CallbackAnswerer(ask)


def open_executor(layer: engine.Layer) -> Executor:
    """The database's executor, building the demo database on first use (as the service does)."""
    from smq_db.open import open_for_layer

    return open_for_layer(layer)


def cmd_ask(args: argparse.Namespace) -> int:
    from agent import AgentConfig, AgentConfigError, AgentNotConfigured, Hooks, make_provider, run_agent
    from agent.eval.equivalence import scorer_equivalence
    from smq_db.executors import BackendUnavailable, ConfigError

    try:
        from agent.config import parse_tools

        config = AgentConfig.from_env(provider=args.provider, model=args.model, trace_dir=args.trace_dir,
                                      max_turns=args.max_turns, tools=parse_tools(args.tools) if args.tools else None,
                                      **reasoning_overrides(args, clarify_default=True))
    except AgentConfigError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    layer = engine.load_layers(models_dir(args))[args.db]  # unknown database: QueryError -> exit 2 in main
    layer.role(args.role)
    try:
        provider = make_provider(config)
    except AgentNotConfigured as err:
        print(f"smq: {err.message}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    try:
        executor = open_executor(layer)
    except (BackendUnavailable, ConfigError, OSError) as err:
        print(f"smq: cannot open database '{layer.name}': {getattr(err, 'message', err)}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    hooks = Hooks(on_turn=None if args.json else _progress)
    try:
        result = run_agent(layer, executor, provider, args.question, config, role=args.role, hooks=hooks,
                           answerer=terminal_answerer() if config.clarify else None, equivalent=scorer_equivalence())
    finally:
        executor.close()
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str))
    else:
        _print_result(result)
    return ExitCode.OK if result.status == "answered" else ExitCode.NO_ANSWER


def _progress(turn: Any) -> None:
    tool = turn.tool or "(no tool call)"
    plan = f"plan {turn.plan} " if turn.plan is not None else ""
    print(f"{plan}turn {turn.index}: {tool} -> {turn.outcome}: {turn.summary}", file=sys.stderr, flush=True)


def _print_result(result: Any) -> None:
    if result.sql is not None:
        print(result.sql.strip())
        print()
        print(format_table(result.columns, result.rows))
        if result.truncated:
            print("(truncated at the row cap)")
    else:
        print(f"no answer ({result.status}): {result.reason}", file=sys.stderr)
    for item in result.clarifications:
        print(f"you clarified: {item['question']} -> {item['answer']}", file=sys.stderr)
    for text in result.assumptions:
        print(f"assumption: {text}", file=sys.stderr)
    if result.vote is not None:
        vote = result.vote
        groups = " ".join("{" + ",".join(map(str, g)) + "}" for g in vote["groups"]) or "none"
        print(f"vote: {vote['plans']} plans, groups {groups}, plan {vote['winner']} wins"
              + (f" (tie broken by {vote['tie_break']})" if vote.get("tie_break") else ""), file=sys.stderr)
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
