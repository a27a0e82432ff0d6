"""`smq validate`, `smq compile`, `smq elements`: the engine from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import engine
from engine import LayerValidationError
from engine.errors import EngineError, InternalError, QueryError

from ..exit_codes import ExitCode
from ..messages import error_line


def add_models_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models-dir", type=Path, default=None,
                        help="folder of database layers (default: $SMQ_MODELS_DIR, then ./semantic_models)")


def add_no_cache(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-cache", dest="cache", action="store_false",
                        help="compile anew: neither read nor write the compiled-SQL cache (also SMQ_NO_CACHE=1)")


def models_dir(args: argparse.Namespace) -> Path:
    return args.models_dir if args.models_dir is not None else engine.default_models_dir()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check every layer; print each error as file:line:col: message")
    add_models_dir(p)
    p.add_argument("--db", help="only this database")
    p.add_argument("--offline", action="store_true",
                   help="check the YAML only: do not open the database (its connection, file, tables and columns)")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("compile", help="compile an SMQ to SQL")
    add_models_dir(p)
    p.add_argument("--db", required=True, help="database name")
    p.add_argument("--dialect", help="SQL dialect (default: the database's own)")
    p.add_argument("--role", help="compile as this access role (row filters, hidden elements)")
    p.add_argument("--no-rollups", dest="rollups", action="store_false", help="the SQL over the facts, never a rollup")
    add_no_cache(p)
    p.add_argument("smq", help="the SMQ as a JSON string, @file.json, or - for stdin")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("elements", help="the dimensions, measures and metrics of models (getModelDataElements)")
    add_models_dir(p)
    p.add_argument("--db", required=True, help="database name")
    p.add_argument("--role", help="list as this access role sees it (hidden elements absent)")
    p.add_argument("models", nargs="*", help="model names (default: all)")
    p.set_defaults(func=cmd_elements)


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        layers = engine.load_layers(models_dir(args))
    except LayerValidationError as err:
        print(err.formatted(), file=sys.stderr)
        return ExitCode.INVALID_LAYER
    errors = layers.errors
    if args.db:
        if args.db not in layers and args.db not in errors:
            layers[args.db]  # raises unknown database with suggestions
        errors = {k: v for k, v in errors.items() if k == args.db}
        names = [args.db] if args.db in layers else []
    else:
        names = list(layers)
    found: dict[str, list] = {name: list(err.errors) for name, err in errors.items()}
    notes: dict[str, str] = {}
    if not args.offline:  # what the YAML cannot tell: the connection, the file, the tables and columns
        from smq_db.check import check_database

        for name in names:
            result = check_database(layers[name])
            if result.errors:
                found[name] = result.errors
            if result.not_checked:
                notes[name] = result.not_checked
    for errs in found.values():
        for e in errs:
            print(e.formatted())
    if found:
        total = sum(len(e) for e in found.values())
        print(f"{total} error(s) in {len(found)} database(s)", file=sys.stderr)
        return ExitCode.INVALID_LAYER
    for name in names:
        layer = layers[name]
        note = f"; columns not checked against the database: {notes[name]}" if name in notes else ""
        print(f"{name}: ok ({len(layer.models)} models, {len(layer.semantic.metrics)} metrics, {len(layer.semantic.joins)} joins)"
              f"{note}", file=sys.stderr)
    return ExitCode.OK


def read_smq(text: str) -> dict[str, Any]:
    """A JSON object given as a string, @file.json or - (stdin), parsed; errors say which and where."""
    source = "the SMQ argument"
    if text == "-":
        text, source = sys.stdin.read(), "stdin"
    elif text.startswith("@"):
        path = Path(text[1:])
        try:
            text, source = path.read_text(encoding="utf-8"), str(path)
        except OSError as exc:
            raise QueryError(f"cannot read {path}: {exc.strerror}", code="file_unreadable") from None
    try:
        smq = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QueryError(f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                         code="invalid_json") from None
    if not isinstance(smq, dict):
        kind = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(type(smq), "null")
        raise QueryError(f"the SMQ must be a JSON object, {source} holds {kind}", code="invalid_smq")
    return smq


def cmd_compile(args: argparse.Namespace) -> int:
    smq: dict[str, Any] | None = None
    try:
        smq = read_smq(args.smq)
    except QueryError as err:
        bad = err  # reported where it was before: after the layer loaded
    if smq is not None:
        from ..sqlcache import Lookup  # here: `smq --help` and the other commands never read the cache

        found = Lookup("sql", args, smq, dialect=args.dialect)  # the same text as `smq query --explain`'s
        if found.text is not None:
            print(found.text)
            return ExitCode.OK
    layers = engine.load_layers(models_dir(args))
    layer = layers[args.db]
    try:
        from .query_commands import compiled_text

        if smq is None:
            raise bad
        sql = compiled_text(layer, smq, args.dialect, args.role, args.rollups)
    except InternalError:
        raise  # main() reports it as a bug, exit code 4
    except EngineError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    found.keep(layer, sql)
    print(sql)
    return ExitCode.OK


def cmd_elements(args: argparse.Namespace) -> int:
    layer = engine.load_layers(models_dir(args))[args.db]
    print(json.dumps(layer.elements(args.models or None, role=args.role), indent=2))
    return ExitCode.OK
