"""Scaffold a layer for every Spider 1.0 SQLite database and measure it (figures for docs/authoring.md).

    .venv/bin/python -m bench.scaffold_spider1 [--data ../shared/data/spider1] [--only db1,db2] [--json out.json]
                                               [--half tune|held_out|all]

For each `database/<db>/<db>.sqlite`: run `smq init` into a temporary folder (which validates the
layer with the engine before writing), then compare its joins with the `foreign_keys` of
tables.json (column-index pairs into `column_names_original`). Two runs per database:

* declared + inferred: the DDL's foreign keys (PRAGMA foreign_key_list) plus name/value inference;
* inferred only: the DDL's foreign keys ignored, so every join must come from names and values.

A tables.json foreign key counts as recovered when a join links the same two columns, in either
direction (a declared key whose target is not unique in the data is turned around). Recall is the
share of tables.json foreign keys recovered; precision the share of joins that are a tables.json
foreign key (a real relationship tables.json omits counts against it). `--half` restricts the run
to one half of the fixed split of bench/split.py (tune on `tune`, report `held_out`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.split import HALVES, select  # noqa: E402
from smq_authoring import ScaffoldError, init_layer  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "spider1"


def gold_pairs(entry: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """tables.json foreign keys as (table, column, ref_table, ref_column), lower-cased."""
    tables, columns = entry["table_names_original"], entry["column_names_original"]
    out = []
    for a, b in entry["foreign_keys"]:
        ta, ca = columns[a]
        tb, cb = columns[b]
        out.append((tables[ta].lower(), ca.lower(), tables[tb].lower(), cb.lower()))
    return out


def recovered(gold: list[tuple[str, str, str, str]], links: list) -> list[bool]:
    pairs = set()
    for link in links:
        for p in link.pairs():
            pairs.add(p)
            pairs.add((p[2], p[3], p[0], p[1]))
    return [g in pairs for g in gold]


def run_one(path: Path, entry: dict[str, Any], *, declared: bool) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spider1-") as tmp:
        try:
            result = init_layer(f"sqlite:///{path}", "db", Path(tmp) / "db", use_declared_fks=declared)
        except ScaffoldError as err:
            return {"valid": False, "error": str(err), "errors": err.errors[:5], "seconds": time.perf_counter() - started}
        except Exception as err:  # noqa: BLE001 - a crash is a result to report, not a reason to stop
            return {"valid": False, "error": f"{type(err).__name__}: {err}", "errors": [], "seconds": time.perf_counter() - started}
        gold = gold_pairs(entry)
        hits = recovered(gold, result.links)
        layer = result.layer
        return {
            "valid": True,
            "seconds": time.perf_counter() - started,
            "tables": len(result.catalog.tables),
            "models": len(layer.models),
            "joins": len(layer.semantic.joins),
            "links": len(result.links),
            "inferred": sum(link.origin == "inferred" for link in result.links),
            "gold_fks": len(gold),
            "recovered": sum(hits),
            "missed": [g for g, h in zip(gold, hits) if not h],
            "extra": sorted({(link.from_table, ",".join(link.from_columns), link.to_table, ",".join(link.to_columns)) for link in result.links
                             if not any(p in set(gold) or (p[2], p[3], p[0], p[1]) in set(gold) for p in link.pairs())}),
            "skipped": [f"{s.what}: {s.reason}" for s in result.skipped],
            "tests_passed": result.tests_passed,
            "tests_failed": len(result.tests_failed),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--only", help="comma-separated database names")
    parser.add_argument("--json", type=Path, help="write per-database results here")
    parser.add_argument("--verbose", action="store_true", help="list every missed foreign key")
    parser.add_argument("--half", choices=HALVES, default="all", help="one half of the fixed split (bench/split.py)")
    args = parser.parse_args(argv)
    entries = {e["db_id"]: e for e in json.loads((args.data / "tables.json").read_text())}
    files = sorted((args.data / "database").glob("*/*.sqlite"))
    if args.only:
        wanted = set(args.only.split(","))
        files = [f for f in files if f.parent.name in wanted]
    in_half = set(select((f.parent.name for f in files), args.half))
    files = [f for f in files if f.parent.name in in_half]
    results: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for i, path in enumerate(files, 1):
        db = path.parent.name
        if db not in entries:
            continue
        both = run_one(path, entries[db], declared=True)
        names_only = run_one(path, entries[db], declared=False)
        results[db] = {"declared": both, "inferred_only": names_only}
        print(f"[{i}/{len(files)}] {db}: "
              + "; ".join(f"{mode}: {'valid' if r['valid'] else 'INVALID'}" + (f", {r['recovered']}/{r['gold_fks']} fks" if r["valid"] else f" ({r['error']})")
                          for mode, r in (("declared+inferred", both), ("inferred only", names_only))),
              file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(report(results, elapsed, verbose=args.verbose))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


def report(results: dict[str, dict[str, Any]], elapsed: float, *, verbose: bool) -> str:
    lines = [f"Spider 1.0: {len(results)} SQLite databases, {elapsed:.0f} s for both runs", ""]
    lines.append("| run | layers that validate | tables.json foreign keys recovered (recall) | joins not in tables.json "
                 "| precision | starter tests passing |")
    lines.append("|---|---|---|---|---|---|")
    for mode, label in (("declared", "DDL foreign keys + inference"), ("inferred_only", "inference only (DDL keys ignored)")):
        rows = [r[mode] for r in results.values()]
        valid = [r for r in rows if r["valid"]]
        gold = sum(r["gold_fks"] for r in valid)
        hit = sum(r["recovered"] for r in valid)
        extra = sum(len(r["extra"]) for r in valid)
        links = sum(r["links"] for r in valid)
        passed = sum(r["tests_passed"] for r in valid)
        failed = sum(r["tests_failed"] for r in valid)
        lines.append(f"| {label} | {len(valid)} / {len(rows)} | {hit} / {gold} ({hit / max(gold, 1):.1%}) | {extra} | "
                     f"{(links - extra) / max(links, 1):.1%} | {passed} / {passed + failed} |")
    for mode in ("declared", "inferred_only"):
        invalid = {db: r[mode] for db, r in results.items() if not r[mode]["valid"]}
        for db, r in invalid.items():
            lines.append(f"INVALID ({mode}) {db}: {r['error']} {r['errors']}")
        if verbose:
            for db, r in results.items():
                if r[mode]["valid"]:
                    for miss in r[mode]["missed"]:
                        lines.append(f"missed ({mode}) {db}: {miss[0]}.{miss[1]} -> {miss[2]}.{miss[3]}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
