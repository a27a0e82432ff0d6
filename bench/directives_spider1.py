"""Directives on Spider 1.0 dev: recall of the gold SQL's tables among the relevant models, and the
share of models hidden (prints figures; never run as a test).

    .venv/bin/python bench/directives_spider1.py [--spider ../shared/data/spider1] [--values] [--grid]
                                                 [--embeddings minilm|gemini] [--half tune|held_out|all]

Per database a quick layer is built from tables.json (one model per table, one dimension per
column, joins from the foreign keys: `spider_layer` below, no other scaffolding). For each dev
question the gold SQL is parsed with sqlglot; its tables are the models it needs. Reported per
database and overall: recall (share of gold tables among the relevant models), full recall (share
of questions whose every gold table is relevant), the share of models hidden, and the tokens of a
full-schema dump next to the relevant models' dump (approximate tokens = characters / 4). The
baseline is a plain word-overlap ranking (question words vs table and column names) cut at the
same budget. The gold SQL is used only to measure.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlglot
import yaml
from sqlglot import exp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.directives.index import DirectiveConfig, DirectiveIndex  # noqa: E402
from bench.split import HALVES, select  # noqa: E402
from engine import Layer, load_layer  # noqa: E402

SPIDER = ROOT.parent / "shared" / "data" / "spider1"
BIG = 6  # the target applies to databases with at least this many tables


# -- the converter: tables.json -> a layer folder ------------------------------------------------------
def _camel(words: str, upper_first: bool) -> str:
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", words) if p]
    text = "".join(p[:1].upper() + p[1:] for p in parts) or "X"
    text = text if upper_first else text[:1].lower() + text[1:]
    return ("T" + text) if text[0].isdigit() else text


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def spider_layer(schema: dict[str, Any], database_file: Path, out_dir: Path) -> Path:
    """Write a layer folder for one Spider database (a sqlite file) and return it."""
    db = schema["db_id"]
    folder = out_dir / db
    (folder / "models").mkdir(parents=True, exist_ok=True)
    tables = schema["table_names_original"]
    names = schema["table_names"]
    model_names: list[str] = []
    for t in tables:
        base, n = _camel(t, True), 2
        name = base
        while name in model_names or "__" in name:
            name, n = f"{base}{n}", n + 1
        model_names.append(name)
    columns: dict[int, list[tuple[int, str, str, str]]] = defaultdict(list)
    for i, ((t, original), (_, natural), ctype) in enumerate(zip(schema["column_names_original"], schema["column_names"],
                                                                  schema["column_types"], strict=True)):
        if t >= 0:
            columns[t].append((i, original, natural, ctype))
    pks = set()
    for pk in schema["primary_keys"]:
        pks.update(pk if isinstance(pk, list) else [pk])
    column_table = {i: t for t, cols in columns.items() for i, *_ in cols}
    column_name = {i: original for cols in columns.values() for i, original, *_ in cols}
    for t, table in enumerate(tables):
        dims, used = [], set()
        for _, original, natural, ctype in columns[t]:
            dim = _camel(original, False)
            base, n = dim, 2
            while dim.lower() in used or "__" in dim:
                dim, n = f"{base}{n}", n + 1
            used.add(dim.lower())
            kind = {"number": "number", "time": "timestamp", "boolean": "boolean"}.get(ctype, "string")
            dims.append({"name": dim, "type": kind, "description": natural, "expr": _quote(original)})
        model: dict[str, Any] = {"name": model_names[t], "description": names[t], "table": _quote(table), "dimensions": dims,
                                 "measures": [{"name": "rowCount", "agg": "count", "description": f"number of {names[t]}"}]}
        keys = [column_name[i] for i in sorted(pks) if column_table.get(i) == t]
        if keys:
            model["primary_key"] = [_quote(k) for k in keys] if len(keys) > 1 else _quote(keys[0])
        (folder / "models" / f"{t:03d}.yml").write_text(yaml.safe_dump(model, sort_keys=False), encoding="utf-8")
    joins, seen = [], set()
    for a, b in schema["foreign_keys"]:
        ta, tb = column_table[a], column_table[b]
        if ta == tb:
            continue  # a self-reference needs a derived model; not needed to rank tables
        key = _camel(column_name[a], False)
        while (ta, tb, key) in seen:
            key += "X"
        seen.add((ta, tb, key))
        joins.append({"from": model_names[ta], "to": model_names[tb], "key": key, "relationship": "many_to_one",
                      "on": {"left": _quote(column_name[a]), "right": _quote(column_name[b])}})
    (folder / "joins.yml").write_text(yaml.safe_dump({"joins": joins}, sort_keys=False), encoding="utf-8")
    database = {"name": db, "description": f"Spider database {db}", "dialect": "sqlite",
                "connection": {"backend": "sqlite", "path": str(database_file.resolve())}}
    (folder / "database.yml").write_text(yaml.safe_dump(database, sort_keys=False), encoding="utf-8")
    return folder


def spider_layers(spider: Path, out_dir: Path, only: set[str] | None = None) -> dict[str, Layer]:
    schemas = json.loads((spider / "tables.json").read_text(encoding="utf-8"))
    out = {}
    for schema in schemas:
        if only is not None and schema["db_id"] not in only:
            continue
        db_file = spider / "database" / schema["db_id"] / f"{schema['db_id']}.sqlite"
        out[schema["db_id"]] = load_layer(spider_layer(schema, db_file, out_dir))
    return out


# -- measuring ---------------------------------------------------------------------------------------
def gold_tables(sql: str, layer: Layer) -> set[str]:
    """The models the gold SQL reads (by table name, case-insensitive)."""
    by_table = {m.source.name.lower(): m.name for m in layer.models.values()}
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        names = {t.name.lower() for t in tree.find_all(exp.Table)} - ctes
    except Exception:  # noqa: BLE001 - a few gold queries do not parse: fall back to FROM/JOIN words
        names = {w.lower() for w in re.findall(r"(?:from|join)\s+([A-Za-z_][A-Za-z0-9_]*)", sql, re.I)}
    return {by_table[n] for n in names if n in by_table}


def schema_dump(layer: Layer, models: list[str] | None = None) -> str:
    """A plain full-schema dump: each table with its columns and types (what an agent would be shown)."""
    out = []
    for name in models or list(layer.models):
        m = layer.models[name]
        cols = ", ".join(f"{d.expr.strip(chr(34))} {d.type}" for d in m.dimensions.values())
        out.append(f"{name} (table {m.source.name}): {m.description}. Columns: {cols}")
    return "\n".join(out)


def overlap_baseline(layer: Layer, question: str, cap: int) -> list[str]:
    """A plain word-overlap ranking: shared lower-case words between the question and table/column names."""
    qwords = set(re.findall(r"[a-z0-9]+", question.lower()))
    scored = []
    for i, (name, m) in enumerate(layer.models.items()):
        words = set(re.findall(r"[a-z0-9]+", " ".join([m.source.name, m.description] + [d.description for d in m.dimensions.values()]).lower().replace("_", " ")))
        scored.append((-len(qwords & words), i, name))
    return [name for *_, name in sorted(scored)[:cap]]


def cap_for(n: int, config: DirectiveConfig) -> int:
    return max(1, math.floor(n * config.budget)) if n >= config.min_models else n


def sample_values(layer: Layer) -> dict[str, list[str]]:
    """Known values through the service's own path: agent.directives.values over the SQLite executor."""
    from agent.directives.values import sample_values as sample
    from smq_db.open import open_for_layer

    path = Path(layer.semantic.connection["path"])
    if not path.is_file():
        return {}  # wta_1 ships only its .sql dump
    executor = open_for_layer(layer)  # the path is absolute (spider_layer resolves it)
    try:
        return sample(layer, executor)
    finally:
        executor.close()


def evaluate(layers: dict[str, Layer], questions: list[dict], config: DirectiveConfig, values: dict | None,
             per_db: bool = False, embedder: Any = None) -> dict[str, Any]:
    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    build_ms, answer_ms = [], []
    indexes = {}
    for db, layer in layers.items():
        started = time.perf_counter()
        indexes[db] = DirectiveIndex(layer, values=(values or {}).get(db), config=config, embedder=embedder)
        build_ms.append((time.perf_counter() - started) * 1000)
    for q in questions:
        layer = layers[q["db_id"]]
        gold = gold_tables(q["query"], layer)
        if not gold:
            continue
        d = indexes[q["db_id"]].directives(q["question"])
        answer_ms.append(d.elapsed_ms)
        rel = set(d.relevant)
        n = len(layer.models)
        base = set(overlap_baseline(layer, q["question"], cap_for(n, config)))
        s = stats[q["db_id"]]
        s["recall"].append(len(gold & rel) / len(gold))
        s["full"].append(float(gold <= rel))
        s["hidden"].append(1 - len(rel) / n)
        s["base_recall"].append(len(gold & base) / len(gold))
        s["base_hidden"].append(1 - len(base) / n)
        s["tokens_full"].append(len(schema_dump(layer)) / 4)
        s["tokens_relevant"].append(len(schema_dump(layer, d.relevant)) / 4)
    return {"stats": stats, "build_ms": build_ms, "answer_ms": answer_ms}


def summary(stats: dict, dbs: list[str]) -> dict[str, float]:
    pool: dict[str, list[float]] = defaultdict(list)
    for db in dbs:
        for k, v in stats[db].items():
            pool[k] += v
    return {k: statistics.fmean(v) for k, v in pool.items() if v} | {"questions": len(pool["recall"])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spider", type=Path, default=SPIDER)
    parser.add_argument("--values", action="store_true", help="index known values sampled from each database")
    parser.add_argument("--grid", action="store_true", help="also print a small sensitivity grid")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--half", choices=HALVES, default="all",
                        help="only the dev databases of one half of the fixed split (bench/split.py)")
    parser.add_argument("--embeddings", choices=["minilm", "gemini"],
                        help="fuse an embedding ranking with BM25 (needs its packages: docs/directives.md)")
    args = parser.parse_args(argv)
    embedder = None
    if args.embeddings:
        from agent.directives.embeddings import EmbeddingsUnavailable, load_embedder

        try:
            embedder = load_embedder(args.embeddings)
        except EmbeddingsUnavailable as err:
            raise SystemExit(f"directives_spider1: {err.message}") from None
    questions = json.loads((args.spider / "dev.json").read_text(encoding="utf-8"))
    dbs = select({q["db_id"] for q in questions}, args.half)
    questions = [q for q in questions if q["db_id"] in set(dbs)]
    with tempfile.TemporaryDirectory() as tmp:
        layers = spider_layers(args.spider, Path(tmp), set(dbs))
        started = time.perf_counter()
        values = {db: sample_values(layer) for db, layer in layers.items()} if args.values else None
        sampling_s = time.perf_counter() - started
        config = DirectiveConfig()
        result = evaluate(layers, questions, config, values, embedder=embedder)
        stats = result["stats"]
        big = [db for db in dbs if len(layers[db].models) >= BIG]
        print(f"{'database':32} {'tables':>6} {'qs':>4} {'recall':>7} {'full':>6} {'hidden':>7} {'base_rec':>8} {'base_hid':>8} "
              f"{'tok_full':>8} {'tok_rel':>8}")
        for db in dbs:
            s = summary(stats, [db])
            print(f"{db:32} {len(layers[db].models):6d} {s['questions']:4d} {s['recall']:7.1%} {s['full']:6.1%} {s['hidden']:7.1%} "
                  f"{s['base_recall']:8.1%} {s['base_hidden']:8.1%} {s['tokens_full']:8.0f} {s['tokens_relevant']:8.0f}")
        for label, group in (("ALL", dbs), (f">= {BIG} tables", big)):
            s = summary(stats, group)
            print(f"{label:32} {'':6} {s['questions']:4d} {s['recall']:7.1%} {s['full']:6.1%} {s['hidden']:7.1%} "
                  f"{s['base_recall']:8.1%} {s['base_hidden']:8.1%} {s['tokens_full']:8.0f} {s['tokens_relevant']:8.0f}")
        ms = sorted(result["answer_ms"])
        print(f"index build: median {statistics.median(result['build_ms']):.1f} ms, max {max(result['build_ms']):.1f} ms; "
              f"per question: median {statistics.median(ms):.2f} ms, p95 {ms[int(len(ms) * .95)]:.2f} ms"
              + (f"; value sampling {sampling_s:.1f} s for {len(layers)} databases" if values else ""))
        if args.grid:
            print(f"\nsensitivity (databases with >= {BIG} tables): relative threshold x field weights")
            for thr in (0.0, 0.1, 0.2, 0.3):
                for we, wd, wv in ((1.0, 0.5, 0.5), (0.7, 0.5, 0.8), (0.5, 0.3, 0.5), (1.0, 0.8, 1.2)):
                    cfg = DirectiveConfig(relative_threshold=thr, field_weights={"names": 1.0, "elements": we,
                                                                                 "descriptions": wd, "values": wv})
                    st = evaluate(layers, questions, cfg, values, embedder=embedder)["stats"]
                    b, a = summary(st, big), summary(st, dbs)
                    print(f"  thr={thr:<4g} elements={we:<4g} descriptions={wd:<4g} values={wv:<4g} -> "
                          f"big: recall {b['recall']:.1%} hidden {b['hidden']:.1%} | all: recall {a['recall']:.1%} "
                          f"hidden {a['hidden']:.1%}")

if __name__ == "__main__":
    main()
