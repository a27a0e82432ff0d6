"""`smq`: the command line. Thin: parse arguments, call the packages, print.

Exit codes: `ExitCode` (exit_codes.py) — 0 success; 1 an invalid layer (`validate`), failed model
tests (`test`) or lint findings with --strict, or no answer (`ask`); 2 a bad query or bad arguments;
3 a missing configuration (e.g. no model provider for `ask`); 4 an internal error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from engine.errors import EngineError, InternalError

from .commands import engine_commands, query_commands
from .exit_codes import ExitCode


# each entry: a module-level `register(subparsers)` that sets `func` on its parser
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [engine_commands.register, query_commands.register]


def _optional_registrars() -> list[Callable]:
    """Commands whose packages need optional dependencies register only when importable."""
    out = []
    for module in ("smq_cli.commands.service_commands", "smq_cli.commands.agent_commands", "smq_cli.commands.explore_commands",
                   "smq_cli.commands.eval_commands", "smq_cli.commands.authoring_commands",
                   "smq_cli.commands.import_commands"):
        try:
            mod = __import__(module, fromlist=["register"])
        except ImportError:
            continue
        out.append(mod.register)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smq",
        description="A semantic layer for LLM agents and BI tools: validate layers, compile SMQs to SQL, serve them.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in REGISTRARS + _optional_registrars():
        register(sub)
    return parser


def _join_dash_values(argv: Sequence[str]) -> list[str]:
    """`--order-by -revenue` (descending, as `mf query` takes it) must not read as an option."""
    out: list[str] = []
    for token in argv:
        if out and out[-1] == "--order-by" and token.startswith("-") and token != "--":
            out[-1] = f"--order-by={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_join_dash_values(sys.argv[1:] if argv is None else argv))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except InternalError as err:
        print(f"smq: internal error (please report it): {err.message}", file=sys.stderr)
        return ExitCode.INTERNAL
    except EngineError as err:
        print(f"smq: {err.formatted()}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except BrokenPipeError:  # `smq compile ... | head`
        return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
