"""`smq init`, `smq test`, `smq lint`: write a layer from a live database, test it on the data, review it.

Exit codes: 0 ok; 1 failures found (test), an invalid layer, or warnings with --strict (lint);
2 bad input (URL, names, unreachable database); 3 not configured (no connection, driver missing);
4 an internal error (a generated layer that does not validate).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import engine
from engine import LayerValidationError
from engine.errors import LayerError, nearest

from ..exit_codes import ExitCode


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="write a semantic layer from a live database (re-run: merge with hand edits)",
                       description="Introspect a database and write a layer that validates: models, joins (declared and "
                                   "inferred, with their confidence), sources.yml, database.yml and starter tests.")
    p.add_argument("--from", dest="url", required=True, metavar="URL",
                   help="sqlite:///file.db, duckdb:///file.duckdb, postgresql://user@host:port/db?schema=s, mysql://user@host:port/db")
    p.add_argument("--db", required=True, help="the database's name in the layer (letters, digits, underscores)")
    p.add_argument("--out", type=Path, help="the layer folder (default: <models-dir>/<db>)")
    _models_dir(p)
    p.add_argument("--sample-rows", type=int, metavar="N", help="profile tables larger than N rows on their first N rows")
    p.add_argument("--no-values", action="store_true", help="do not read column values (no value lists in descriptions)")
    p.add_argument("--no-tests", action="store_true", help="do not write tests/generated.yml")
    p.add_argument("--ignore-declared-fks", action="store_true", help="infer every join from names and values")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("test", help="run the model tests in <layer>/tests/*.yml on the database")
    _models_dir(p)
    p.add_argument("--db", help="only this database")
    p.add_argument("-k", dest="select", metavar="TEXT", help="only tests whose name contains TEXT")
    p.add_argument("-v", "--verbose", action="store_true", help="show the SQL of passing tests too")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("lint", help="reviewer warnings: missing descriptions, sums of identifiers, unreachable models ...")
    _models_dir(p)
    p.add_argument("--db", help="only this database")
    p.add_argument("--strict", action="store_true", help="exit 1 when there is any warning")
    p.add_argument("--ignore", default="", metavar="RULE[,RULE]", help="rule ids to skip")
    p.add_argument("--rules", action="store_true", help="list the rules and exit")
    p.set_defaults(func=cmd_lint)


def _models_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models-dir", type=Path, default=None,
                        help="folder of database layers (default: $SMQ_MODELS_DIR, then ./semantic_models)")


def display_path(path: Path) -> str:
    """engine.layer.reader's display path, imported when printed (it pulls in sqlglot)."""
    from engine.layer.reader import display_path as display

    return display(path)


def _err(message: str) -> None:
    print(f"smq: {message}", file=sys.stderr)


# -- init --------------------------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    from smq_authoring import MergeError, ScaffoldError, UrlError, init_layer
    from smq_authoring.introspect import QueryFailed, SourceError
    from smq_db.executors.errors import BackendUnavailable

    if args.sample_rows is not None and args.sample_rows < 1:
        _err("--sample-rows must be at least 1")
        return ExitCode.BAD_INPUT
    out = args.out or (args.models_dir or engine.default_models_dir()) / args.db
    try:
        result = init_layer(args.url, args.db, out, sample_rows=args.sample_rows, read_values=not args.no_values,
                            use_declared_fks=not args.ignore_declared_fks, write_tests=not args.no_tests,
                            progress=lambda message: print(message, file=sys.stderr))
    except QueryFailed as err:
        _err(f"internal error (please report it): a query failed on the database: {err}")
        return ExitCode.INTERNAL
    except (UrlError, SourceError) as err:
        _err(str(err))
        return ExitCode.BAD_INPUT
    except BackendUnavailable as err:
        _err(str(err))
        return ExitCode.NOT_CONFIGURED
    except MergeError as err:
        _err(str(err))
        for line in err.errors:
            print(line)
        return ExitCode.FAILED
    except ScaffoldError as err:
        _err(f"internal error (please report it): {err}")
        for line in err.errors:
            print(line, file=sys.stderr)
        return ExitCode.INTERNAL
    except LayerError as err:  # the existing layer's YAML is broken
        _err(f"cannot merge with the existing layer: {err.formatted()}")
        return ExitCode.FAILED
    _print_init(result, args.db)
    return ExitCode.OK


def _print_init(result: Any, db: str) -> None:
    layer = result.layer
    declared = sum(link.origin == "declared" for link in result.links)
    inferred = [link for link in result.links if link.origin == "inferred"]
    verb = "wrote" if result.created else "updated"
    print(f"{verb} {display_path(result.layer_dir)}: {len(layer.models)} models, {len(layer.semantic.joins)} joins "
          f"({declared} declared, {len(inferred)} inferred from names and values)")
    for link in inferred:
        print(f"  inferred {link.from_table}({', '.join(link.from_columns)}) -> {link.to_table}({', '.join(link.to_columns)}) "
              f"confidence {link.confidence:.2f}")
    for skipped in result.skipped:
        print(f"  not joined: {skipped.what}: {skipped.reason}")
    for table in result.skipped_tables:
        print(f"  skipped table {table}")
    if result.tests_passed or result.tests_failed:
        print(f"  tests/generated.yml: {result.tests_passed} starter tests pass on the data"
              + (f", {len(result.tests_failed)} commented out (they fail there):" if result.tests_failed else ""))
        for failure in result.tests_failed:
            print(f"    {failure}")
    if not result.created:
        for change in result.changes:
            print(f"  {change}")
        for kept in result.kept:
            print(f"  {kept}")
        print(f"  files rewritten: {', '.join(result.written) or 'none'}" + (f"; removed: {', '.join(result.removed)}" if result.removed else ""))
    models_dir = result.layer_dir.parent
    flag = "" if models_dir.resolve() == engine.default_models_dir().resolve() else f" --models-dir {display_path(models_dir)}"
    if result.layer_dir.name != db:  # the folder is not named after the database: point at it by name anyway
        flag = f" --models-dir {display_path(models_dir)}"
    print(f"next: smq lint{flag} --db {db}, edit the descriptions, smq test{flag} --db {db}")


# -- test --------------------------------------------------------------------------------------------------


def _layers(args: argparse.Namespace) -> tuple[Any, list[str]] | int:
    """The loaded layers and the names to act on, or an exit code after printing why."""
    try:
        layers = engine.load_layers(args.models_dir or engine.default_models_dir())
    except LayerValidationError as err:
        _err(err.formatted())
        return ExitCode.BAD_INPUT
    names = sorted([*layers, *layers.errors])
    if args.db:
        if args.db not in names:
            hint = nearest(args.db, names, 1)
            _err(f"unknown database '{args.db}'" + (f"; did you mean '{hint[0]}'?" if hint else ""))
            return ExitCode.BAD_INPUT
        names = [args.db]
    return layers, names


def _runner(layer: Any) -> Any:
    from smq_db.open import open_for_layer

    executor = open_for_layer(layer)

    def run(sql: str) -> tuple[list[str], list[list[Any]]]:
        result = executor.execute(sql, max_rows=100_000, timeout_s=120)
        return result.columns, result.rows

    return executor, run


def cmd_test(args: argparse.Namespace) -> int:
    from smq_authoring.modeltests import format_outcome, load_tests, run_tests, summary
    from smq_db.executors.errors import BackendUnavailable, ConfigError

    found = _layers(args)
    if isinstance(found, int):
        return found
    layers, names = found
    outcomes, problems, ran_any = [], 0, False
    for name in names:
        if name in layers.errors:
            _err(f"database '{name}' failed to load: {len(layers.errors[name].errors)} error(s) (run `smq validate --db {name}`)")
            problems += 1
            continue
        layer = layers[name]
        cases, errors = load_tests(Path(layer.semantic.directory), display=lambda p: display_path(p))
        for err in errors:
            print(f"ERROR {err.formatted()}")
        problems += len(errors)
        if args.select:
            cases = [c for c in cases if args.select in c.name]
        if not cases:
            if not errors:
                print(f"{name}: no tests (write {display_path(Path(layer.semantic.directory) / 'tests')}/*.yml, or run smq init)",
                      file=sys.stderr)
            continue
        try:
            executor, run = _runner(layer)
        except (ConfigError, BackendUnavailable, OSError, ValueError) as err:
            _err(f"{name}: cannot reach the database: {getattr(err, 'message', err)}")
            return ExitCode.NOT_CONFIGURED
        try:
            ran_any = True
            print(f"{name}: {len(cases)} test(s)")
            results = run_tests(layer, cases, run)
        finally:
            executor.close()
        for outcome in results:
            print(format_outcome(outcome, verbose=args.verbose))
        outcomes += results
    if ran_any or outcomes:
        print(summary(outcomes) + (f", {problems} malformed test(s) or broken layer(s)" if problems else ""), file=sys.stderr)
    failed = any(not o.passed for o in outcomes) or problems
    return ExitCode.FAILED if failed else ExitCode.OK


def _folder_of(root: Path, name: str) -> Path:
    """The folder of a database that failed to load (its name is in its database.yml, or is the folder's)."""
    from engine.facade import database_dirs

    for folder in database_dirs(root):
        text = (folder / "database.yml").read_text(encoding="utf-8") if (folder / "database.yml").exists() else ""
        if folder.name == name or any(line.split(":", 1)[1].strip().strip("'\"") == name
                                      for line in text.splitlines() if line.startswith("name:")):
            return folder
    return root / name


# -- lint --------------------------------------------------------------------------------------------------


def cmd_lint(args: argparse.Namespace) -> int:
    from smq_authoring.lint import RULES, lint_joins_file, lint_layer

    if args.rules:
        for rule, text in RULES.items():
            print(f"{rule}: {text}")
        return ExitCode.OK
    ignore = {r.strip() for r in args.ignore.split(",") if r.strip()}
    unknown = sorted(ignore - set(RULES))
    if unknown:
        _err(f"unknown lint rule '{unknown[0]}' (see smq lint --rules)")
        return ExitCode.BAD_INPUT
    found = _layers(args)
    if isinstance(found, int):
        return found
    layers, names = found
    warnings, invalid = 0, 0
    for name in names:
        if name in layers.errors:
            for e in layers.errors[name].errors:
                loc = e.location
                print(f"{loc.file}:{loc.line or 1}:{loc.column or 1}: error: {e.message} [invalid-layer]")
            invalid += 1
            for warning in lint_joins_file(_folder_of(Path(args.models_dir or engine.default_models_dir()), name), ignore):
                print(warning.formatted())
                warnings += 1
            continue
        for warning in lint_layer(layers[name], ignore):
            print(warning.formatted())
            warnings += 1
    print(f"{warnings} warning(s) in {len(names) - invalid} database(s)"
          + (f"; {invalid} database(s) do not validate" if invalid else ""), file=sys.stderr)
    if invalid:
        return ExitCode.FAILED
    return ExitCode.FAILED if args.strict and warnings else ExitCode.OK
