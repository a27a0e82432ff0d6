"""`smq import dbt`: a layer from dbt MetricFlow definitions (a dbt project, a YAML folder or semantic_manifest.json).

Exit codes: 0 imported (one summary line); 1 constructs that cannot be mapped (each as file:line: what, and
why; nothing written unless --partial); 2 bad input (no such path, no semantic models, unreadable YAML);
4 an internal error (an imported layer that does not validate).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import engine
from engine.dialects import DEFAULT_ENGINE
from engine.errors import LayerError

from ..exit_codes import ExitCode
from ..messages import error_line


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import a semantic layer from another tool (dbt MetricFlow)")
    tools = p.add_subparsers(dest="tool", metavar="TOOL")
    d = tools.add_parser("dbt", help="semantic models, metrics and saved queries of dbt MetricFlow",
                         description="Map dbt MetricFlow definitions onto a layer that validates. Re-running it keeps "
                                     "hand edits. Constructs that cannot be mapped are listed as file:line and stop the "
                                     "import unless --partial.")
    d.add_argument("--from", dest="source", required=True, type=Path, metavar="PATH",
                   help="a dbt project folder, a folder of MetricFlow YAML, or a semantic_manifest.json")
    d.add_argument("--db", required=True, help="the database's name in the layer (letters, digits, underscores)")
    d.add_argument("--models-dir", type=Path, default=None,
                   help="folder of database layers (default: $SMQ_MODELS_DIR, then ./semantic_models)")
    d.add_argument("--out", type=Path, help="the layer folder (default: <models-dir>/<db>)")
    d.add_argument("--dialect", default=DEFAULT_ENGINE.value, help=f"the SQL dialect of the warehouse (default: {DEFAULT_ENGINE.value})")
    d.add_argument("--schema", help="the schema of the tables, in place of node_relation's (e.g. $source_schema)")
    d.add_argument("--partial", action="store_true", help="write what can be mapped even when some constructs cannot")
    d.set_defaults(func=cmd_import_dbt)
    p.set_defaults(func=lambda args: _no_tool(p))


def _no_tool(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return ExitCode.BAD_INPUT


def cmd_import_dbt(args: argparse.Namespace) -> int:
    from smq_authoring.dbt import ImportRefused, import_dbt
    from smq_authoring.init import ScaffoldError

    out = args.out or (args.models_dir or engine.default_models_dir()) / args.db
    try:
        result = import_dbt(args.source, args.db, out, dialect=args.dialect, schema=args.schema, partial=args.partial)
    except ImportRefused as err:
        for line in err.errors:
            print(line, file=sys.stderr)
        print(f"smq: {err}", file=sys.stderr)
        return ExitCode.FAILED
    except ScaffoldError as err:
        for line in err.errors:
            print(line, file=sys.stderr)
        print(f"smq: internal error (please report it): {err}", file=sys.stderr)
        return ExitCode.INTERNAL
    except LayerError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    for refusal in result.refusals:
        print(f"{refusal.formatted()}", file=sys.stderr)
    for noted in result.notes:  # not imported, and why (changes no answer, or not in the layer yet)
        file_line, _, message = noted.formatted().partition(": ")
        print(f"{file_line}: note: {message}", file=sys.stderr)
    for note in result.kept:
        print(f"smq: {note}", file=sys.stderr)
    print(result.summary())
    if not result.layer or not result.layer.semantic.connection:
        print(f"smq: add a connection to {out / 'database.yml'} to run queries (smq query --db {args.db} ...)", file=sys.stderr)
    return ExitCode.OK
