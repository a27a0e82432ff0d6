"""`smq rollups build|status`: a layer's rollups (docs/rollups.md) built from the warehouse into their store, and
their state (built when, rows, size, stale or not, used by queries now or why not)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import engine

from ..exit_codes import ExitCode
from .engine_commands import add_models_dir, models_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rollups", help="build rollups (pre-aggregated tables) and show their state")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    b = actions.add_parser("build", help="build each rollup (or --name R) from the warehouse, atomically")
    s = actions.add_parser("status", help="each rollup: built when, rows, size, stale, used by queries now")
    for q in (b, s):
        add_models_dir(q)
        q.add_argument("--db", required=True, help="database name")
        q.add_argument("--name", "--rollup", dest="names", action="append", default=[], metavar="ROLLUP",
                       help="only this rollup (repeatable)")
    b.add_argument("--full", action="store_true", help="rebuild partitioned rollups in full, not from their last partition")
    b.set_defaults(func=cmd_build)
    s.add_argument("--format", choices=("table", "json"), default="table")
    s.add_argument("--check", action="store_true", help="also run each `refresh: {sql}` watermark query on the warehouse")
    s.set_defaults(func=cmd_status)
    p.set_defaults(func=lambda args: (p.print_help(), ExitCode.BAD_INPUT)[1])


def _open(layer: Any, args: argparse.Namespace) -> Any:
    """The warehouse's executor; held to its memory bound in this process only when it is the `smq` command's own
    (a caller of `main()` from Python keeps its process unbounded, as `smq query` does)."""
    from smq_db.open import open_for_layer

    return open_for_layer(layer, one_shot=getattr(args, "one_shot", False))


def _known(layer: Any, names: list[str]) -> None:
    for name in names:
        layer.rollup(name)  # an unknown name: QueryError with the nearest


def cmd_build(args: argparse.Namespace) -> int:
    from smq_db.executors.errors import BackendUnavailable, ConfigError, ExecutionError
    from smq_db.rollups import RollupError, build

    layer = engine.load_layers(models_dir(args))[args.db]
    _known(layer, args.names)
    try:
        executor = _open(layer, args)
    except (ConfigError, BackendUnavailable, OSError) as err:
        print(f"smq: {layer.name}: cannot reach the database: {getattr(err, 'message', err)}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    try:
        built = build(layer, executor, args.names or None, full=args.full, progress=lambda text: print(text, file=sys.stderr))
    except RollupError as err:
        print(f"smq: {layer.name}: {err}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except ExecutionError as err:
        print(f"smq: {layer.name}: the database refused a rollup's query (the previous rollups stay in use): {err.message}",
              file=sys.stderr)
        return ExitCode.BAD_INPUT
    finally:
        executor.close()
    for b in built:
        how = f"from {b.partial_since} on" if b.partial_since else "in full"
        print(f"{b.name}: {b.rows:,} rows, built {how} in {b.seconds:.2f} s")
    return ExitCode.OK


def cmd_status(args: argparse.Namespace) -> int:
    from smq_db.rollups import status

    layer = engine.load_layers(models_dir(args))[args.db]
    _known(layer, args.names)
    in_warehouse = layer.semantic.rollups is not None and layer.semantic.rollups.storage.warehouse
    executor = _open(layer, args) if args.check or in_warehouse else None
    try:
        rows = [r for r in status(layer, executor) if not args.names or r["name"] in args.names]
    finally:
        if executor is not None:
            executor.close()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return ExitCode.OK
    if not rows:
        print(f"{layer.name}: no rollups declared (rollups.yml)")
    for r in rows:
        state = "not built" if not r["built"] else f"built {r['built_at']}, {r['rows']:,} rows, {r['bytes'] / 1024:,.0f} KiB"
        stale = f"; stale: {r['stale']}" if r["built"] and r["stale"] else ""
        used = "used by queries" if r["used"] else f"not used: {r['why_not']}"
        print(f"{r['name']} ({r['model']}): {state}{stale}; {used}")
    return ExitCode.OK
