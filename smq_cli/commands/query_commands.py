"""`smq query`: compile an SMQ and run it on the layer's database, printing the rows (MetricFlow's
`mf query` habits: --metrics, --group-by, --where, --start-time/--end-time, --order(-by), --limit, --saved-query,
--explain with --show-dataflow-plan, --csv FILE, --decimals, --quiet)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import asdict
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from engine.errors import QueryError

from ..exit_codes import ExitCode
from .engine_commands import add_models_dir, add_no_cache, models_dir, read_smq

if TYPE_CHECKING:
    from ..sqlcache import Lookup

MAX_ROWS = 100_000  # printed at most; a larger result says it was cut
FORMATS = ("table", "csv", "json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("query", help="run a query on a layer's database and print the rows (mf query's options)",
                       description="Compile a query and run it on the layer's database. Give the query as options "
                                   "(--metrics, --group-by, --where, --order-by, --limit) or as a whole SMQ.")
    add_models_dir(p)
    p.add_argument("--db", required=True, help="database name")
    p.add_argument("--saved-query", metavar="NAME",
                   help="run a saved query of the layer by name (--where adds filters; --order-by, --limit replace its own)")
    p.add_argument("--metrics", help="comma-separated metric names")
    p.add_argument("--group-by", help="comma-separated dimensions, entities or metric_time[__grain]")
    p.add_argument("--where", action="append", default=[], metavar="FILTER",
                   help="a filter (SQL predicate over element names, or MetricFlow's {{ Dimension(...) }}); repeatable")
    p.add_argument("--start-time", metavar="TIME",
                   help="keep metric_time from this ISO 8601 date or timestamp on, widened to the start of its period of the "
                        "query's grain (mf query's, inclusive)")
    p.add_argument("--end-time", metavar="TIME",
                   help="keep metric_time up to this ISO 8601 date or timestamp, widened to the end of its period (inclusive)")
    p.add_argument("--order-by", "--order", dest="order_by",
                   help="comma-separated names, '-' before one for descending (--order: mf query's spelling)")
    p.add_argument("--limit", type=_limit, help="at most this many rows")
    p.add_argument("--role", help="run as this access role (row filters, hidden elements)")
    p.add_argument("--format", choices=FORMATS, default="table", help="how rows are printed (default: table)")
    p.add_argument("--csv", metavar="FILE", help="write the rows to FILE as CSV (mf query's), printing one line about it")
    p.add_argument("--decimals", type=_decimals, metavar="N",
                   help="print non-integer numbers in the table with N digits after the point (mf query's)")
    p.add_argument("--quiet", action="store_true", help="print the rows only: no row count, no line about --csv")
    p.add_argument("--explain", action="store_true", help="print the SQL instead of running it")
    p.add_argument("--show-dataflow-plan", action="store_true",
                   help="with --explain: the resolved query and the plan (smq explain's outline) as SQL comments before the SQL")
    p.add_argument("--display-plans", action="store_true", help=argparse.SUPPRESS)  # mf query's: refused with why
    p.add_argument("--show-sql-descriptions", action="store_true", help=argparse.SUPPRESS)  # mf query's: refused with why
    p.add_argument("--dialect", help="with --explain: the SQL dialect (default: the database's own)")
    p.add_argument("--no-rollups", dest="rollups", action="store_false", help="answer from the facts, never from a rollup")
    add_no_cache(p)
    p.add_argument("smq", nargs="?", help="a whole SMQ instead of the options: JSON, @file.json or - for stdin")
    p.set_defaults(func=cmd_query)


def _limit(text: str) -> int:
    """--limit: a count of rows (mf query's message names the option and the format, so does this)."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of rows (0 or more), got '{text}'")
    return int(text)


def _decimals(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of digits after the point (0 or more), got '{text}'")
    return int(text)


def _names(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def build_smq(args: argparse.Namespace) -> dict[str, Any]:
    """The SMQ from a whole-query argument or from the options; never both."""
    options = {"metrics": _names(args.metrics), "group_by": _names(args.group_by),
               "filters": [w for w in args.where if w.strip()], "order_by": _names(args.order_by)}
    if args.smq is not None and getattr(args, "saved_query", None):
        raise QueryError("give either --saved-query or a whole SMQ, not both", code="bad_arguments")
    if args.smq is not None:
        given = [flag for flag, key in (("--metrics", "metrics"), ("--group-by", "group_by"), ("--where", "filters"),
                                        ("--order-by", "order_by")) if options[key]]
        given += [flag for flag, value in (("--start-time", args.start_time), ("--end-time", args.end_time),
                                           ("--limit", args.limit)) if value is not None]
        if given:
            flags = given
            raise QueryError(f"give the query either as an SMQ or as options, not both ({', '.join(flags)} with an SMQ)",
                             code="bad_arguments")
        whole = read_smq(args.smq)
        if not isinstance(whole, dict):
            raise QueryError("the SMQ must be a JSON object", code="invalid_smq")
        return whole
    smq: dict[str, Any] = {key: value for key, value in options.items() if value}
    if args.limit is not None:
        smq["limit"] = args.limit
    if getattr(args, "saved_query", None):
        fixed = [flag for flag, key in (("--metrics", "metrics"), ("--group-by", "group_by")) if options[key]]
        if fixed:
            raise QueryError(f"a saved query fixes its metrics and group_by: {' and '.join(fixed)} cannot be given with "
                             "--saved-query (--where, --order-by and --limit can)", code="bad_arguments")
        return {"saved_query": args.saved_query, **smq}
    if not smq.get("metrics") and not smq.get("group_by"):
        raise QueryError("nothing to query: give --metrics and/or --group-by, or a whole SMQ", code="bad_arguments")
    return smq


def cmd_query(args: argparse.Namespace) -> int:
    from ..sqlcache import Lookup  # here: `smq --help` and the other commands never read the cache

    _check_flags(args)
    smq = build_smq(args)
    if args.explain and not args.show_dataflow_plan:  # the text `smq compile` prints, from the same cache entry
        found = Lookup("sql", args, smq, dialect=args.dialect, start=args.start_time, end=args.end_time)
        if found.text is None:
            layer = engine.load_layers(models_dir(args))[args.db]
            timed = with_time_constraint(layer, smq, args.start_time, args.end_time)
            found.keep(layer, compiled_text(layer, timed, args.dialect, args.role, args.rollups))
        print(found.text)
        return ExitCode.OK
    cached = Lookup("query", args, smq, start=args.start_time, end=args.end_time) if not (args.explain or args.dialect) else None
    if cached is not None and cached.entry is not None:
        done = _run_cached(args, cached.entry)
        if done is not None:
            return done
        cached.entry = None  # not usable: compiled anew, and written again
    return _run(args, smq, cached)


def _run(args: argparse.Namespace, smq: dict[str, Any], cached: Lookup | None) -> int:
    """Load the layer, compile (checked read-only on the tree) and run; the SQL and what opening the database
    needs are kept in the cache (`cached`) for the next run."""
    from smq_db.compiled import compiled_sql
    from smq_db.executors.errors import BackendUnavailable, ConfigError, ExecutionError
    from smq_db.open import executor_record, open_for_layer

    layer = engine.load_layers(models_dir(args))[args.db]
    smq = with_time_constraint(layer, smq, args.start_time, args.end_time)
    if args.explain:
        if args.show_dataflow_plan:
            print(plan_comment(layer, smq, args.dialect, args.role, args.rollups))
        print(compiled_text(layer, smq, args.dialect, args.role, args.rollups))
        return ExitCode.OK
    if args.dialect:
        raise QueryError("--dialect only applies with --explain: a query runs in its database's own dialect",
                         code="bad_arguments")
    try:
        # a process of its own (the `smq` command): an embedded engine runs here, this process under its memory
        # bound, rather than in a worker process started for one query
        executor = open_for_layer(layer, one_shot=getattr(args, "one_shot", False))
    except (ConfigError, BackendUnavailable, OSError) as err:
        print(f"smq: {layer.name}: cannot reach the database: {getattr(err, 'message', err)}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    try:
        # after opening: the executor reads which rollups are built and fresh
        sql = compiled_sql(layer, smq, args.role, rollups=args.rollups)  # checked read-only on its tree
        record = executor_record(layer) if cached is not None and cached.name is not None else None
        if cached is not None and record is not None:
            cached.keep(layer, sql, database={"name": layer.name, "dialect": layer.dialect,
                                              "directory": str(Path(layer.semantic.directory).resolve()),
                                              "connection": dict(layer.semantic.connection), **asdict(record)})
        result = executor.execute(sql, max_rows=MAX_ROWS, timeout_s=300)
    except ExecutionError as err:
        print(f"smq: {layer.name}: the database refused the query: {err.message}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED if isinstance(err, BackendUnavailable) else ExitCode.BAD_INPUT
    finally:
        executor.close()
    return _print_rows(args, layer.name, result)


def _run_cached(args: argparse.Namespace, entry: dict[str, Any]) -> int | None:
    """Run a cache entry's SQL: compiled and checked read-only on its tree when it was written (smq_cli/sqlcache.py,
    docs/security.md), so it is run as checked, on the database the entry names, opened as `_run` opens it. None
    when the entry's database record is unsound or names another backend now: the caller compiles as usual."""
    from smq_db.executors.errors import BackendUnavailable, ConfigError, ExecutionError
    from smq_db.open import Recorded, open_recorded

    db = entry.get("database")
    fields = {"name": str, "dialect": str, "directory": str, "connection": dict, "backend": str,
              "isolated_by_default": bool, "executor": str}
    if not isinstance(db, dict) or any(not isinstance(db.get(k), t) for k, t in fields.items()):
        return None
    sql, name = entry["text"], db["name"]
    try:
        executor = open_recorded(Recorded(db["backend"], db["isolated_by_default"], db["executor"]), db["connection"],
                                 Path(db["directory"]), db["dialect"], name, one_shot=getattr(args, "one_shot", False))
    except (ConfigError, BackendUnavailable, OSError) as err:
        print(f"smq: {name}: cannot reach the database: {getattr(err, 'message', err)}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    if executor is None:
        return None
    try:
        run = getattr(executor, "execute_checked", executor.execute)  # without it: parsed and checked again
        result = run(sql, max_rows=MAX_ROWS, timeout_s=300)
    except ExecutionError as err:
        print(f"smq: {name}: the database refused the query: {err.message}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED if isinstance(err, BackendUnavailable) else ExitCode.BAD_INPUT
    finally:
        executor.close()
    return _print_rows(args, name, result)


def _print_rows(args: argparse.Namespace, name: str, result: Any) -> int:
    try:
        if args.csv:
            return write_csv(args.csv, result.columns, result.rows, args.quiet)
        text = render(result.columns, result.rows, args.format, args.decimals, args.quiet)
    except MemoryError:
        print(f"smq: {name}: the rows do not fit in this process's memory to be printed; add a limit",
              file=sys.stderr)
        return ExitCode.BAD_INPUT
    sys.stdout.write(text)
    if result.truncated:
        print(f"smq: only the first {MAX_ROWS:,} rows are shown; add a limit", file=sys.stderr)
    return ExitCode.OK


def _check_flags(args: argparse.Namespace) -> None:
    """mf query's options that have no meaning here, or only with another one, are refused with why."""
    if args.display_plans:
        raise QueryError("--display-plans (mf query's plan drawn in a browser) is not offered: --explain "
                         "--show-dataflow-plan prints the plan as text", code="bad_arguments")
    if args.show_sql_descriptions:
        raise QueryError("--show-sql-descriptions is not offered: smq's SQL has no node descriptions to inline; "
                         "--explain --show-dataflow-plan prints the resolved query and the plan before it", code="bad_arguments")
    if args.show_dataflow_plan and not args.explain:
        raise QueryError("--show-dataflow-plan only applies with --explain (as in mf query)", code="bad_arguments")
    if args.csv and args.explain:
        raise QueryError("--csv writes rows; with --explain there are none (print the SQL, or drop --explain)",
                         code="bad_arguments")
    if args.csv and args.format != "table":
        raise QueryError(f"give either --csv FILE or --format {args.format}, not both", code="bad_arguments")


def with_time_constraint(layer: Any, smq: dict[str, Any], start: str | None, end: str | None) -> dict[str, Any]:
    """--start-time / --end-time as MetricFlow's time constraint: one more filter on metric_time (time_constraint.py)."""
    if start is None and end is None:
        return smq
    from .time_constraint import time_constraint

    body = smq
    if "saved_query" in smq:  # its own group_by decides the grain
        saved = layer.semantic.saved_queries.get(smq["saved_query"])
        body = dict(saved.query) if saved is not None else {}
    metrics = [layer.semantic.metrics.get(name) for name in body.get("metrics") or () if isinstance(name, str)]
    shifted = next((m.name for m in metrics if m is not None and _reads_at_offset(layer.semantic.metrics, m.name)), None)
    if shifted:
        raise QueryError(f"--start-time / --end-time with metric {shifted}, which reads an input at an offset: MetricFlow "
                         "constrains only its periods and reads the shifted rows outside the range, which a filter cannot "
                         "say; filter on metric_time with --where instead (it restricts the rows read too)", code="bad_arguments")
    found = time_constraint(start, end, [g for g in body.get("group_by") or () if isinstance(g, str)],
                            [m.time_grain for m in metrics if m is not None])
    return {**smq, "filters": [*smq.get("filters", ()), found]} if found else smq


def _reads_at_offset(metrics: Any, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a metric, or any metric it is computed from, reads an input at an offset."""
    metric = metrics.get(name)
    if metric is None or name in seen:
        return False
    if any(spec.offset is not None for spec in metric.input_specs):
        return True
    return any(_reads_at_offset(metrics, child, seen | {name}) for child in metric.inputs())


def plan_comment(layer: Any, smq: Any, dialect: str | None, role: str | None, rollups: bool) -> str:
    """smq explain's outline of the resolved query and the plan, as SQL comments (mf query's --show-dataflow-plan)."""
    from .explain_command import render_text

    if layer.rollups and rollups:
        from smq_db.rollups import refresh_states

        refresh_states(layer)  # which rollups are built, as `smq explain` reads them
    report = layer.explain(smq, dialect=dialect, role=role, rollups=rollups)
    outline = render_text(report).split("\n\nSQL (")[0]
    return "\n".join(f"-- {line}".rstrip() for line in outline.splitlines()) + "\n"


def write_csv(path: str, columns: list[str], rows: list[list[Any]], quiet: bool) -> int:
    """--csv FILE: the rows as CSV in FILE (mf query's), a line saying so unless --quiet."""
    try:
        with open(path, "w", encoding="utf-8", newline="") as out:
            out.write(render(columns, rows, "csv"))
    except OSError as err:
        print(f"smq: --csv: cannot write {path}: {err.strerror or err}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if not quiet:
        print(f"wrote {len(rows)} row{'s' if len(rows) != 1 else ''} to {path}", file=sys.stderr)
    return ExitCode.OK


def compiled_text(layer: Any, smq: Any, dialect: str | None, role: str | None, rollups: bool) -> str:
    """The SQL a query runs, with a first comment naming the rollups answering it (and where it runs)."""
    if not rollups or dialect is not None or not layer.rollups:
        return layer.compile(smq, dialect=dialect, role=role, rollups=rollups)
    from smq_db.rollups import refresh_states

    refresh_states(layer)
    found = layer.compile_routed(smq, role)
    if not found.rollups:
        return found.sql
    if found.parts:  # a mixed query (engine/rollups/mix.py): each part runs on the store, its rows fill its table
        head = [f"-- answered from rollup(s) {', '.join(found.rollups)} on the embedded rollup store (DuckDB), the rest from the "
                "facts on the warehouse: each part below runs on the store first, and its rows fill its table"]
        for part in found.parts:
            head += [f"-- {part.table} (rollup {part.rollup}):"] + [f"--   {line}" for line in part.sql.splitlines()]
        return "\n".join(head) + f"\n{found.sql}"
    where = "the embedded rollup store (DuckDB)" if found.store == "rollups" else "the warehouse"
    return f"-- answered from rollup(s) {', '.join(found.rollups)}, on {where}\n{found.sql}"


def render(columns: list[str], rows: list[list[Any]], fmt: str, decimals: int | None = None, quiet: bool = False) -> str:
    if fmt == "json":
        return json.dumps({"columns": columns, "rows": rows}, default=str) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if v is None else v for v in row] for row in rows])
        return out.getvalue()
    return table(columns, rows, decimals, quiet)


def _cell(value: Any, decimals: int | None = None) -> str:
    if value is None:
        return "NULL"
    if decimals is not None and (isinstance(value, float) or isinstance(value, Decimal) and value != value.to_integral_value()):
        return f"{value:,.{decimals}f}"  # --decimals: fixed point, as mf query prints non-integers
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) >= 1e15 or (value and abs(value) < 1e-4) else f"{value:,.4f}".rstrip("0").rstrip(".")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    return str(value)


def table(columns: list[str], rows: list[list[Any]], decimals: int | None = None, quiet: bool = False) -> str:
    """A plain aligned table: numbers right-aligned, NULL spelled out, the row count below (not with --quiet)."""
    cells = [[_cell(v, decimals) for v in row] for row in rows]
    numeric = [all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in rows if row[i] is not None)
               for i in range(len(columns))]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(columns), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    if not quiet:
        out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"
