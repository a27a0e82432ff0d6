"""`smq directives` (which models a question needs) and `smq mcp` (the MCP server).

Exit codes: 0 success; 2 bad input (unknown database, unreadable questions file); 3 not configured
(no keys and no --open, a wrong SMQ_API_KEY, a missing dependency, no model for --infer).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine

from ..exit_codes import ExitCode
from ..messages import error_line
from .engine_commands import add_models_dir, models_dir


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("directives", help="which models a question needs: {\"relevant\": [...], \"irrelevant\": [...]}",
                       description="Rank the database's models for a question (BM25 over names, elements, descriptions "
                                   "and known values, plus join-graph bridges) and print the verdict as JSON; with "
                                   "--questions, one JSON line per question carrying its input's id.")
    add_models_dir(d)
    d.add_argument("--db", required=True, help="database name")
    d.add_argument("--role", help="as this access role (its hidden elements are not indexed)")
    d.add_argument("--values", action="store_true", help="also index values sampled from the database (opens it)")
    d.add_argument("--infer", action="store_true", help="add the column names a language model infers from the question "
                   "(one model call per question; model from $SMQ_PROVIDER/$SMQ_MODEL and its key)")
    d.add_argument("--reasons", action="store_true", help="add a short reason per model")
    what = d.add_mutually_exclusive_group(required=True)
    what.add_argument("question", nargs="?", help="the question")
    what.add_argument("--questions", type=Path, metavar="FILE.jsonl",
                      help='one {"id": ..., "question": "..."} per line; prints one JSON line each')
    d.set_defaults(func=cmd_directives)

    m = sub.add_parser("mcp", help="serve the tools over the Model Context Protocol (stdio or streamable HTTP)",
                       description="An MCP server with getModelDataElements, convertSmqToSql, execute, listModels and the "
                                   "exploration tools, under the same API keys and access roles as the REST service. "
                                   "Over stdio the key comes from $SMQ_API_KEY; over HTTP from each request's "
                                   "Authorization: Bearer header.")
    add_models_dir(m)
    m.add_argument("--db", help="serve only this database (tools then need no `database` argument)")
    m.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="default: stdio")
    m.add_argument("--host", default="127.0.0.1", help="HTTP: interface to bind (default 127.0.0.1)")
    m.add_argument("--port", type=int, default=8765, help="HTTP: port (default 8765); the endpoint is /mcp")
    access = m.add_mutually_exclusive_group(required=True)
    access.add_argument("--api-keys", type=Path, metavar="FILE", help="YAML keys file (the service's format)")
    access.add_argument("--open", action="store_true", help="no keys, every caller an admin: local use only")
    m.add_argument("--allow-open-remote", action="store_true",
                   help="HTTP: let --open listen on a non-loopback interface (anyone who can reach it is an admin)")
    m.add_argument("--python", action="store_true", help="also offer the sandboxed python tool")
    m.add_argument("--max-rows", type=int, help="most rows one execute returns (default 10000)")
    m.add_argument("--query-timeout", type=float, metavar="SECONDS", help="per-query timeout (default 30)")
    m.set_defaults(func=cmd_mcp)


# -- smq directives -------------------------------------------------------------------------------
def _questions(path: Path) -> Iterator[tuple[Any, str]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise ValueError(f'{path}:{number}: expected {{"id": ..., "question": "..."}}')
        yield item.get("id", number), item["question"]


def cmd_directives(args: argparse.Namespace) -> int:
    try:
        from agent.directives import directives_for
    except ImportError as exc:  # bm25s and its numpy come with the agent extra
        print(f"smq: directives need the agent extra ({exc.name or exc} is missing): pip install 'smq-semantic-layer[agent]'",
              file=sys.stderr)
        return ExitCode.NOT_CONFIGURED

    layer = engine.load_layers(models_dir(args))[args.db]
    layer.role(args.role)
    provider = executor = None
    if args.infer:
        from agent import AgentConfig, AgentConfigError, AgentNotConfigured, make_provider

        try:
            provider = make_provider(AgentConfig.from_env())
        except (AgentNotConfigured, AgentConfigError) as err:
            print(f"smq: --infer needs a model: {err.message}", file=sys.stderr)
            return ExitCode.NOT_CONFIGURED
    if args.values:
        from .agent_commands import open_executor

        executor = open_executor(layer)
    try:
        items = [(None, args.question)] if args.questions is None else list(_questions(args.questions))
    except (OSError, ValueError) as exc:
        print(f"smq: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        for ident, question in items:
            verdict = directives_for(layer, question, role=args.role, executor=executor, provider=provider)
            body: dict[str, Any] = ({"id": ident} if args.questions is not None else {}) | verdict.to_json()
            if args.reasons:
                body["reasons"] = {d.model: d.reason for d in verdict.items}
            print(json.dumps(body, ensure_ascii=False), flush=True)
    finally:
        if executor is not None:
            executor.close()
    return ExitCode.OK


# -- smq mcp ------------------------------------------------------------------------------------------
def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        import anyio

        from service.app import build_state
        from service.errors import ServiceConfigError, Unauthorized
        from service.mcp.server import build_server, http_app, serve_stdio, stdio_principal
        from service.settings import Settings
    except ImportError as exc:
        print(f"smq: the MCP server needs the 'mcp' package and the service extras ({exc.name} is missing): "
              "pip install 'smq-semantic-layer[mcp]'", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    from .service_commands import is_loopback

    if args.transport == "http" and args.open and not args.allow_open_remote and not is_loopback(args.host):
        print(f"smq: refusing to serve MCP without keys (--open) on {args.host}: every caller that can reach it would "
              "be an admin. Bind a loopback address (--host 127.0.0.1), give --api-keys FILE, or pass "
              "--allow-open-remote if that is really meant", file=sys.stderr)
        return ExitCode.BAD_INPUT
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    overrides = {"models_dir": args.models_dir, "api_keys_file": args.api_keys, "open_access": args.open or None,
                 "max_rows": args.max_rows, "query_timeout_s": args.query_timeout}
    try:
        state = build_state(Settings(**{k: v for k, v in overrides.items() if v is not None}))
    except ServiceConfigError as err:
        print(f"smq: cannot start the MCP server: {err.formatted()}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    if args.db is not None:
        state.registry.entry(args.db)  # unknown database: exit 2 with suggestions (main)
    if args.transport == "stdio":
        try:
            principal = stdio_principal(state)
        except Unauthorized as err:
            print(f"smq: {err.message}", file=sys.stderr)
            return ExitCode.NOT_CONFIGURED
        server = build_server(state, default_db=args.db, python_enabled=args.python, stdio_principal=principal)
        try:
            anyio.run(serve_stdio, server)
        finally:
            state.registry.close()
        return ExitCode.OK
    import uvicorn

    server = build_server(state, default_db=args.db, python_enabled=args.python)
    print(f"smq: MCP over streamable HTTP at http://{args.host}:{args.port}/mcp", file=sys.stderr)
    try:
        uvicorn.run(http_app(server, state, host=args.host), host=args.host, port=args.port, log_level="warning")
    finally:
        state.registry.close()
    return ExitCode.OK


def main(argv: list[str] | None = None) -> int:
    """`python -m smq_cli.commands.explore_commands directives|mcp ...`: these commands without the main CLI."""
    parser = argparse.ArgumentParser(prog="smq")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    from engine.errors import EngineError

    try:
        return int(args.func(args) or 0)
    except EngineError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
