"""`smq explain`: what the engine made of an SMQ, stage by stage (the resolved query, the plan, the SQL)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import engine
from engine.errors import EngineError, InternalError

from ..exit_codes import ExitCode
from ..messages import error_line
from .engine_commands import add_models_dir, models_dir, read_smq


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="show the resolved query, the plan and the SQL of an SMQ")
    add_models_dir(p)
    p.add_argument("--db", required=True, help="database name")
    p.add_argument("--dialect", help="SQL dialect (default: the database's own)")
    p.add_argument("--role", help="as this access role")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text for people (default), json for scripts")
    p.add_argument("--no-rollups", dest="rollups", action="store_false", help="explain the query over the facts")
    p.add_argument("smq", help="the SMQ as a JSON string, @file.json, or - for stdin")
    p.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    layer = engine.load_layers(models_dir(args))[args.db]
    try:
        if layer.rollups and args.rollups:
            from smq_db.rollups import refresh_states

            refresh_states(layer)  # which rollups are built (the store's file; the warehouse is not reached)
        report = layer.explain(read_smq(args.smq), dialect=args.dialect, role=args.role, rollups=args.rollups)
    except InternalError:
        raise  # main() reports it as a bug, exit code 4
    except EngineError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    print(json.dumps(report, indent=2) if args.format == "json" else render_text(report))
    return ExitCode.OK


def render_text(report: dict[str, Any]) -> str:
    """The three stages as an indented outline."""
    resolved = report["resolved"]
    lines = ["Resolved query"]
    for key in resolved["group_by"]:
        grain = f" by {key['grain']}" if key.get("grain") else f" ({key['date_part']})" if key.get("date_part") else ""
        lines.append(f"  group by {key['name']}: {key['dimension']}{grain}")
    for f in resolved["filters"]:
        lines.append(f"  {f['field']}: {f['filter']} ({f['applies']})")
    for agg in resolved["aggregations"]:
        measures = ", ".join(f"{m['column']} = {m['agg']}({m['measure']})" for m in agg["measures"])
        reads = agg["reads"]["kind"] + (f" {agg['reads']['metric']}" if "metric" in agg["reads"] else "")
        lines.append(f"  aggregation {agg['id']} over {agg['model']} ({reads}): {measures or 'no measures'}")
        for join in agg["joins"]:
            lines.append(f"    join {join['path']}{' (fans out: deduplicated)' if join['fans_out'] else ''}")
        if agg.get("offset"):
            lines.append(f"    read at offset {agg['offset']}")
    for entry in report.get("rollups", ()):
        lines.append(f"  {entry['model']}: " + (f"from rollup {entry['rollup']}" if entry["rollup"] else f"from the facts ({entry['why']})"))
    for out in resolved["outputs"]:
        lines.append(f"  output {out['name']} = {out['template']}")
    lines += ["", "Plan"]

    def node(item: dict[str, Any], depth: int) -> None:
        detail = [f"{item['aggregation']} over {item['model']}"] if "aggregation" in item else []
        for key in ("order_by", "limit", "time_key", "grain"):
            if item.get(key) not in (None, []):
                detail.append(f"{key} {item[key]}")
        lines.append("  " * (depth + 1) + item["node"] + (f" ({', '.join(map(str, detail))})" if detail else ""))
        for child in ([item["input"]] if "input" in item else []) + item.get("inputs", []):
            node(child, depth + 1)

    node(report["plan"], 0)
    lines += ["", f"SQL ({report['dialect']})", report["sql"]]
    return "\n".join(lines)
