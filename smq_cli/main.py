"""`smq`: the command line. Thin: parse arguments, call the packages, print.

Exit codes: `ExitCode` (exit_codes.py) — 0 success; 1 an invalid layer (`validate`), failed model
tests (`test`) or lint findings with --strict, or no answer (`ask`); 2 a bad query or bad arguments;
3 a missing configuration (e.g. no model provider for `ask`); 4 an internal error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from engine.errors import EngineError, InternalError

from .commands import engine_commands, list_command, query_commands
from .exit_codes import ExitCode
from .messages import error_line

# each entry: a module-level `register(subparsers)` that sets `func` on its parser
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [engine_commands.register, list_command.register,
                                                                   query_commands.register]


# command -> the module registering it: `smq compile` imports only what compile needs (not the agent, pandas, FastAPI)
OPTIONAL_COMMANDS = {
    "serve": "service_commands", "keys": "service_commands", "ask": "agent_commands", "directives": "explore_commands",
    "mcp": "explore_commands", "eval": "eval_commands", "init": "authoring_commands", "test": "authoring_commands",
    "lint": "authoring_commands", "import": "import_commands", "explain": "explain_command",
    "rollups": "rollup_commands",
}
CORE_COMMANDS = ("validate", "compile", "elements", "list", "query")


class _VersionAction(argparse.Action):
    """`smq --version`; the installed version is looked up only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib import metadata

        try:
            version = metadata.version("smq-semantic-layer")
        except metadata.PackageNotFoundError:
            version = "unknown (not installed)"
        print(f"smq {version}")
        parser.exit()


def _optional_registrars(command: str | None = None) -> list[Callable]:
    """Commands whose packages need optional dependencies register only when importable; only `command`'s when named."""
    out = []
    names = dict.fromkeys(OPTIONAL_COMMANDS.values())
    if command in CORE_COMMANDS or command == "--version":
        names = {}
    elif command in OPTIONAL_COMMANDS:
        names = {OPTIONAL_COMMANDS[command]: None}
    for module in (f"smq_cli.commands.{name}" for name in names):
        try:
            mod = __import__(module, fromlist=["register"])
        except ImportError:
            continue
        # no command named (`smq --help`, a typo): names and help suffice; a module may register just those, cheaply
        out.append(getattr(mod, "register_summary", mod.register) if command is None else mod.register)
    return out


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the command about to run, only its module is imported (start-up time)."""
    parser = argparse.ArgumentParser(
        prog="smq",
        description="A semantic layer for LLM agents and BI tools: validate layers, compile SMQs to SQL, serve them.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in REGISTRARS + _optional_registrars(command):
        register(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command named on the line, if it is a known one (else None: every command registers, for help and hints)."""
    if list(argv[:1]) == ["--version"]:
        return "--version"
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in CORE_COMMANDS or first in OPTIONAL_COMMANDS else None


def _join_dash_values(argv: Sequence[str]) -> list[str]:
    """`--order-by -revenue` / `--order -revenue` (descending, as `mf query` takes it) must not read as an option."""
    out: list[str] = []
    for token in argv:
        if out and out[-1] in ("--order-by", "--order") and token.startswith("-") and token != "--":
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Without `argv` this is the `smq` process itself (the console script, `python -m`): a
    command that computes one answer (compile, query, validate, elements) then leaves without the interpreter's
    teardown, which frees every module's objects one by one (a tenth of a second of `smq compile`), and
    `smq query` runs an embedded engine in this process under its memory bound (smq_db.open `one_shot`).
    Tests and other callers pass `argv` and get neither."""
    one_shot = argv is None
    tokens = _join_dash_values(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command(tokens))
    args = parser.parse_args(tokens)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return ExitCode.BAD_INPUT
    args.one_shot = one_shot
    code = _run(args)
    if one_shot and args.command in CORE_COMMANDS:
        _leave(code)
    return code


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except InternalError as err:
        print(f"smq: internal error (please report it): {err.message}", file=sys.stderr)
        return ExitCode.INTERNAL
    except EngineError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    except BrokenPipeError:  # `smq compile ... | head`
        return ExitCode.OK


def _leave(code: int) -> None:
    """Exit now: what was printed is flushed, nothing else is left to do (no thread, no open file of ours)."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`| head`): what it wanted, it has
        pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
