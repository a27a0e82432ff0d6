"""`smq list metrics|measures|dimensions|models`: what a layer offers, as a table a person reads (MetricFlow's
`mf list metrics`), or `--format json` for scripts. The rows come from `Layer.elements` (what
getModelDataElements returns), so a role's hidden elements are absent here too."""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from typing import Any

import engine

from ..exit_codes import ExitCode

KINDS = ("metrics", "measures", "dimensions", "models")
COLUMNS = {
    "metrics": ("name", "type", "model", "description"),
    "measures": ("name", "agg", "model", "description"),
    "dimensions": ("name", "type", "grains", "description"),
    "models": ("name", "dimensions", "measures", "metrics", "description"),
}


def register(sub: argparse._SubParsersAction) -> None:
    from .engine_commands import add_models_dir

    p = sub.add_parser("list", help="list the metrics, measures, dimensions or models of a layer as a table (or JSON)")
    p.add_argument("kind", choices=KINDS, help="what to list")
    add_models_dir(p)
    p.add_argument("--db", help="database name (default: the only one under the models folder)")
    p.add_argument("--model", action="append", default=None, help="only this model (repeatable)")
    p.add_argument("--role", help="list as this access role sees it (hidden elements absent)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="a table (default) or JSON for scripts")
    p.set_defaults(func=cmd_list)


def rows(listing: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """One dict per metric/measure/dimension/model of a `Layer.elements` listing."""
    out: list[dict[str, Any]] = []
    for model in listing["models"]:
        if kind == "models":
            out.append({"name": model["name"], "dimensions": len(model["dimensions"]), "measures": len(model["measures"]),
                        "metrics": len(model["metrics"]), "description": model.get("description") or ""})
            continue
        for item in model[kind]:
            row = {"name": item["name"], "model": model["name"], "description": item.get("description") or ""}
            if kind == "dimensions":
                row |= {"type": item["type"], "grains": ",".join(item.get("grains", []))}
            elif kind == "measures":
                row["agg"] = item["agg"]
            else:
                row["type"] = item["type"]
            out.append(row)
    return out


def table(records: list[dict[str, Any]], columns: tuple[str, ...], width: int) -> str:
    """Aligned columns; the last (the description) wrapped to what the terminal has left."""
    cells = [[str(r.get(c, "")) for c in columns] for r in records]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns[:-1])]
    left = sum(widths) + 2 * len(widths)
    room = max(width - left, 24)
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns[:-1], widths)) + "  " + columns[-1],
             "  ".join("-" * w for w in widths) + "  " + "-" * min(room, max([len(columns[-1])] + [len(r[-1]) for r in cells]))]
    for row in cells:
        wrapped = textwrap.wrap(row[-1], room) or [""]
        lines.append(("  ".join(c.ljust(w) for c, w in zip(row[:-1], widths)) + "  " + wrapped[0]).rstrip())
        lines += [(" " * left + more).rstrip() for more in wrapped[1:]]
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace) -> int:
    from .engine_commands import models_dir

    layers = engine.load_layers(models_dir(args))
    name = args.db
    if name is None:
        names = list(layers) + list(layers.errors)
        if len(names) != 1:
            from engine.errors import QueryError

            raise QueryError(f"say which database with --db (there are {len(names)}: {', '.join(sorted(names))})",
                             code="bad_arguments")
        name = names[0]
    listing = layers[name].elements(args.model or None, role=args.role)
    records = rows(listing, args.kind)
    if args.format == "json":
        print(json.dumps(records, indent=2, ensure_ascii=False))
        return ExitCode.OK
    if not records:
        print(f"(no {args.kind})")
        return ExitCode.OK
    print(table(records, COLUMNS[args.kind], shutil.get_terminal_size((100, 24)).columns))
    print(f"({len(records)} {args.kind if len(records) != 1 else args.kind[:-1]})")
    return ExitCode.OK
