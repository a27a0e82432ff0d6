"""The differential run: import MetricFlow's model both ways, answer queries.yml on our side, compare with
MetricFlow's answers (mf_side.py), write report.md.

Usage (repository root, after bench/metricflow/setup.sh):  .venv/bin/python -m bench.metricflow.run
Set MF_PROJECT to use another project folder (default .bench-venvs/metricflow-project).
`--project shop` (after `setup.sh shop`): our own shop project, shop_queries.yml -> shop_report.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import duckdb
import yaml

from bench.metricflow.compare import first_difference, on_shared_groups
from bench.metricflow.report import write_report
from engine import load_layers
from smq_cli.commands.query_commands import with_time_constraint

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MF_PYTHON = ROOT / ".bench-venvs" / "metricflow" / "bin" / "python"


def smq_import(source: Path, out: Path, schema: str | None = None) -> dict:
    """`smq import dbt --partial` into OUT/mf; the summary line, the refusals and the layer's files."""
    shutil.rmtree(out, ignore_errors=True)  # a fresh import each run (a re-import would keep the added connection)
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "smq_cli.main", "import", "dbt", "--from", str(source), "--db", "mf",
                          "--out", str(out / "mf"), "--partial", *(["--schema", schema] if schema else [])],
                         capture_output=True, text=True, cwd=ROOT)
    lines = (run.stdout + run.stderr).splitlines()
    refusals = [m.group(1) for line in lines if (m := re.match(r"^\S+:\d+: (.*)$", line)) and not m.group(1).startswith("note: ")]
    summary = next((line for line in lines if " imported " in line), "")
    return {"exit": run.returncode, "summary": summary, "refusals": refusals, "seconds": round(time.monotonic() - started, 2)}


def layer_files(folder: Path) -> dict[str, object]:
    return {str(p.relative_to(folder)): yaml.safe_load(p.read_text(encoding="utf-8"))
            for p in sorted(folder.rglob("*.yml"))}


def connect_layer(layer: Path, database: Path) -> None:
    config = yaml.safe_load((layer / "database.yml").read_text(encoding="utf-8"))
    config["connection"] = {"backend": "duckdb", "path": str(database)}
    (layer / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def to_smq(q: dict) -> dict:
    if q.get("saved_query"):  # run by name (engine/resolve/saved.py)
        return {"saved_query": q["saved_query"]}
    smq = {"metrics": q.get("metrics") or []}
    for ours, theirs in (("group_by", "group_by"), ("filters", "where"), ("filters", "filters"), ("order_by", "order_by")):
        if q.get(theirs):
            smq[ours] = list(q[theirs])
    if q.get("limit") is not None:
        smq["limit"] = q["limit"]
    return smq


def our_answer(layer, database: Path, query: dict) -> dict:
    """Try MetricFlow's names first, then the native twin; the form that compiled and its rows."""
    tried = []
    for form in ("mf", "native"):
        if query.get(form) is None:
            continue
        try:
            q = query[form]  # mf query's --start-time / --end-time as `smq query` applies them
            sql = layer.compile(with_time_constraint(layer, to_smq(q), q.get("start_time"), q.get("end_time")))
        except Exception as exc:  # noqa: BLE001 - a refusal is a verdict
            tried.append(f"{form}: {str(exc).splitlines()[0][:300]}")
            continue
        try:
            with duckdb.connect(str(database), read_only=True) as conn:
                cursor = conn.execute(sql)
                return {"form": form, "columns": [d[0] for d in cursor.description], "rows": cursor.fetchall(), "sql": sql}
        except duckdb.Error as exc:  # compiled but does not run: a failure of ours, reported as such
            return {"form": form, "failed": str(exc).splitlines()[0][:300], "sql": sql}
    return {"form": None, "refused": tried}


def canonical(columns: list[str], rows: list, order: list[str]) -> list[tuple]:
    """Rows with their columns in ORDER (MetricFlow orders group-by columns its own way); as they come when
    the names do not match (then the contract's order is assumed: group_by first, then metrics)."""
    if sorted(columns) != sorted(order):
        return [tuple(row) for row in rows]
    index = [columns.index(name) for name in order]
    return [tuple(row[i] for i in index) for row in rows]


def left_out(query: dict, refusals: list[str]) -> str:
    """The importer's reason for the first of the query's metrics it left out, if any."""
    for metric in query["mf"].get("metrics") or []:
        for refusal in refusals:
            if refusal.startswith(f"metric '{metric}':"):
                return f"not imported: {refusal}"
    return ""


def verdict(query: dict, theirs: dict, ours: dict, refusals: list[str]) -> dict:
    q = query["mf"]
    order = list(q.get("group_by") or []) + list(q.get("metrics") or [])
    out = {"id": query["id"], "kind": query["kind"], "form": ours.get("form"), "note": query.get("note", "")}
    if "error" in theirs:
        lines = [line.strip() for line in theirs["error"].splitlines() if line.strip()]
        cause = next((line for line in reversed(lines) if "Error" in line or "Exception" in line), lines[-1])
        out.update(verdict="MetricFlow error", detail=f"{lines[0][:120]} ... {cause[:200]}")
        return out
    if ours.get("form") is None:
        reason = left_out(query, refusals) or "; ".join(ours.get("refused") or []) or "no native twin"
        out.update(verdict="ours unsupported", detail=reason[:300])
        return out
    if "failed" in ours:
        out.update(verdict="ours failed", detail=f"compiled but failed on DuckDB: {ours['failed']}")
        return out
    mf_rows = canonical(theirs["columns"], theirs["rows"], order)
    our_rows = canonical(ours["columns"], ours["rows"], order) if ours["form"] == "mf" else [tuple(r) for r in ours["rows"]]
    diff = first_difference(our_rows, mf_rows)
    if diff is None:
        out.update(verdict="equal", detail=f"{len(mf_rows)} row(s)")
    else:
        shared = on_shared_groups(our_rows, mf_rows, len(q.get("group_by") or []))
        where = f"; on the {shared[0]} group(s) both return, {shared[1]} differ" if shared else ""
        out.update(verdict="differs", detail=f"ours {len(our_rows)} row(s), MetricFlow {len(mf_rows)}{where}; "
                                             f"first differing row: ours {diff[0]} vs MetricFlow {diff[1]}")
    return out


# per project: its default folder, its queries, its report and the report's one-line description
PROJECTS = {
    "mf": (".bench-venvs/metricflow-project", "queries.yml", "report.md",
           "MetricFlow's own test model (`simple_manifest`) and data"),
    "shop": (".bench-venvs/shop-project", "shop_queries.yml", "shop_report.md",
             "Our own dbt project over the demo shop (`shop_project/`, MetricFlow YAML written by hand)"),
    # dbt Labs' public example projects (jaffle.py builds them; their queries.yml is generated into the project)
    "jaffle-shop": (".bench-venvs/jaffle-shop-project", "", "jaffle_shop_report.md",
                    "dbt Labs' jaffle-shop (github.com/dbt-labs/jaffle-shop), one year of `jafgen` data, built with dbt-duckdb"),
    "jaffle-sl": (".bench-venvs/jaffle-sl-project", "", "jaffle_sl_report.md",
                  "dbt Labs' jaffle-sl-template (github.com/dbt-labs/jaffle-sl-template), one year of `jafgen` data, "
                  "built with dbt-duckdb"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", choices=sorted(PROJECTS), default="mf")
    kind = parser.parse_args().project
    folder, queries_file, report_file, about = PROJECTS[kind]
    project = Path(os.environ.get("MF_PROJECT", ROOT / folder))
    queries = HERE / queries_file if queries_file else project / "queries.yml"
    run(project, queries, HERE / report_file, about, schema="main" if kind.startswith("jaffle") else None)


def run(project: Path, queries_path: Path, report_path: Path, about: str, schema: str | None = None) -> None:
    database = project / "mf.duckdb"
    manifest = project / "target" / "semantic_manifest.json"
    imports = {"manifest": smq_import(manifest, project / "layers_manifest", schema),
               "yaml": smq_import(project if schema else project / "yaml", project / "layers_yaml", schema)}
    a, b = layer_files(project / "layers_manifest" / "mf"), layer_files(project / "layers_yaml" / "mf")
    for files in (a, b):
        files.get("database.yml", {}).pop("description", None)
    layer_diff = sorted(set(a) ^ set(b)) + [name for name in sorted(set(a) & set(b)) if a[name] != b[name]]

    started = time.monotonic()
    subprocess.run([str(MF_PYTHON), str(HERE / "mf_side.py"), str(project), str(queries_path),
                    str(project / "mf_answers.json")], check=True, cwd=project)
    mf_seconds = round(time.monotonic() - started, 1)
    mf = json.loads((project / "mf_answers.json").read_text(encoding="utf-8"))["answers"]

    connect_layer(project / "layers_yaml" / "mf", database)
    layer = load_layers(project / "layers_yaml")["mf"]
    queries = yaml.safe_load(queries_path.read_text(encoding="utf-8"))["queries"]
    refusals = imports["yaml"]["refusals"]
    started = time.monotonic()
    answers = {q["id"]: our_answer(layer, database, q) for q in queries}
    ours_seconds = round(time.monotonic() - started, 1)
    results = [verdict(q, mf[q["id"]], answers[q["id"]], refusals) for q in queries]
    write_report(report_path, results, imports, layer_diff, (mf_seconds, ours_seconds), project, about)
    print(Counter(r["verdict"] for r in results), Counter(r["form"] for r in results))


if __name__ == "__main__":
    main()
