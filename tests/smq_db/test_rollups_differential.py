"""Every engine reference case, answered with rollups declared over it, equals its reference with rollups on and off,
on every engine's warehouse (DuckDB, SQLite, PostgreSQL, MariaDB, Snowflake by fakesnow; the servers' demo is the one
tests/conftest.py loads for the session); the rollups in the embedded DuckDB store, built from that warehouse, and
(the cases of cases.yml) stored in the warehouse itself on PostgreSQL and MariaDB, where rollups and facts mix.

For each case a rollup is declared per aggregation of the case's own resolved query (its model, its measures, the
dimensions its keys and filters read, a time dimension with a grain at day), built from the warehouse, and the case is
run twice: answered where the router allows (often from the rollups), and from the facts. Cases the router sends to
the facts still count: they show it declined; the last test checks that many cases were answered from rollups."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Layer, LayerValidationError, load_layer
from engine.resolve.names import Resolver
from engine.resolve.query import parse_smq
from engine.resolve.query_resolver import QueryResolver
from smq_db import rollups
from smq_db.compiled import compiled_sql
from smq_db.executors.duckdb import DuckDBExecutor
from smq_db.open import open_for_layer

from ..conftest import MYSQL, PG_DSN, Runner, server_connection
from ..engine.test_engines import CASES, TIME_AXES, assert_same_rows, shop_with_extra_metrics

SERVERS = ("postgres", "mysql", "snowflake")
STORE = f"smq_rollupdiff_{os.getpid()}"  # the rollups' schema (a database on MariaDB) when stored in the warehouse
ANSWERED: dict[str, int] = {"rollup": 0, "facts": 0}
_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:")


def _layer_folder(tmp: Path, name: str, engine: str, demo: Path) -> Path:
    """A copy of the case's layer, on `engine`'s demo database."""
    base = tmp / f"{name}-{engine}"
    base.mkdir()
    if name in ("shop_with_extra_metrics", "shop_extra_on_time_axis"):
        folder = shop_with_extra_metrics(base, TIME_AXES if name == "shop_extra_on_time_axis" else None).semantic.directory
    else:
        folder = base / "shop"
        shutil.copytree(Path(__file__).resolve().parents[2] / "semantic_models" / "shop", folder,
                        ignore=shutil.ignore_patterns("data"))
    text = (folder / "database.yml").read_text()
    text = re.sub(r"dialect: duckdb", f"dialect: {engine}", text, count=1)
    if engine in SERVERS:  # the session's demo there (JSON is YAML's flow style)
        text = re.sub(r"^connection:\n(?:  .*\n)+", f"connection: {json.dumps(server_connection(engine))}\n", text, count=1, flags=re.M)
    else:
        if engine == "duckdb":  # in this process (the worker processes are tests/smq_db/executors'), on a copy of its
            # own: DuckDB refuses a second connection to a file this process holds open with other settings (conftest)
            demo = Path(shutil.copyfile(demo, base / "shop.duckdb"))
            text = text.replace("connection:\n", "connection:\n  limits: {isolation: none}\n", 1)
        text = text.replace("backend: duckdb", f"backend: {engine}").replace("path: data/shop.duckdb", f"path: {demo}")
        text = text.replace("demo: shop", "")
    (folder / "database.yml").write_text(text)
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path],
            runners: Callable[[str], Runner]) -> Callable[[str, str], Path]:
    """(layer, engine) -> the layer's folder deployed on that engine, made on first use (a server not reachable skips)."""
    tmp = tmp_path_factory.mktemp("rollup-diff")
    made: dict[tuple[str, str], Path] = {}

    def get(name: str, engine: str) -> Path:
        if (name, engine) not in made:
            if engine in SERVERS:
                runners(engine)  # loads the demo there for the session (the emulator's patch stays active), or skips
            made[(name, engine)] = _layer_folder(tmp, name, engine, demo_files.get(engine, Path()))
        return made[(name, engine)]
    return get


@pytest.fixture(scope="module")
def reference(demo_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Any:
    # a copy of its own: this process may hold the demo file open already with other settings (conftest's runners),
    # and DuckDB refuses a second connection to one file with a different configuration
    copy = tmp_path_factory.mktemp("rollup-reference") / "shop.duckdb"
    shutil.copyfile(demo_files["duckdb"], copy)
    executor = DuckDBExecutor(copy)
    yield executor
    executor.close()


def _rollups_for(layer: Layer, smq: dict) -> list[dict]:
    """One rollup per aggregation of the case: what it reads, nothing more."""
    resolved = QueryResolver(layer.semantic, layer.graph, Resolver(layer.semantic), layer._dialect(None)).resolve(parse_smq(smq))
    out = []
    for i, agg in enumerate(resolved.aggregations):
        measures = sorted({c.measure.name for c in agg.columns if c.measure.non_additive is None})
        refs = [*agg.keys, *(r for f in (*agg.where, *agg.metric_filters) for r in f.dimension_refs())]
        if not measures or any(f.metric_refs() for f in (*agg.where, *agg.metric_filters)):
            continue
        dims: list[str] = []
        time_dim = None
        for ref in refs:
            name = ".".join(ref.keys) + "." + ref.dimension.qualified_name if ref.keys else ref.dimension.qualified_name
            if ref.dimension.is_time and (ref.grain or ref.date_part) and time_dim in (None, name):
                time_dim = name
            elif name not in dims:
                dims.append(name)
        rollup: dict[str, Any] = {"name": f"r{i}", "model": agg.model, "measures": measures, "dimensions": [d for d in dims if d != time_dim]}
        if time_dim:
            rollup.update(time_dimension=time_dim, grain="day")
        out.append(rollup)
    return out


def _declare(folder: Path, declared: list[dict], storage: dict | None = None) -> Layer | None:
    """The layer with the rollups that bind (one that cannot, a fan-out path say, is left out)."""
    for _ in range(len(declared) + 1):
        (folder / "rollups.yml").write_text(yaml.safe_dump({**({"storage": storage} if storage else {}), "rollups": declared}, sort_keys=False))
        try:
            return load_layer(folder)
        except LayerValidationError as err:
            bad = {m for e in err.errors for m in re.findall(r"rollup '(r\d+)'", e.message)}
            if not bad:
                raise
            declared = [r for r in declared if r["name"] not in bad]
            if not declared:
                return None
    return None


def _expressible(smq: dict, engine: str) -> bool:
    """Filters are read in the layer's dialect and the cases' are DuckDB's: the same text means the same on every
    engine but one, `a || b`, logical OR in MySQL's SQL (and no filter function concatenates: CONCAT is not allowed)."""
    return engine != "mysql" or not any("||" in f for f in smq.get("filters") or ())


def _rows(rows: list[list]) -> list[tuple]:
    return [tuple(v.replace("T", " ", 1) if isinstance(v, str) and _DATETIME.match(v) else v for v in row) for row in rows]


# DuckDB and PostgreSQL: every case; SQLite, MariaDB and the Snowflake emulator: the cases of cases.yml (the rest
# take minutes there: SQLite's and MariaDB's offset plans, the emulator's translation; SMQ_ROLLUP_DIFF_ALL=1 runs
# them too, as was done when these engines were added: all passed); the servers and the emulator are `slow`
FIRST = {c["name"] for c in yaml.safe_load((Path(__file__).resolve().parents[1] / "engine" / "cases.yml").read_text())}
EVERY = {"duckdb", "postgres"} | ({"sqlite", "mysql", "snowflake"} if os.environ.get("SMQ_ROLLUP_DIFF_ALL") else set())
PARAMS = [pytest.param(c, "duckdb", id=f"{c['name']}-duckdb") for c in CASES] + \
    [pytest.param(c, "sqlite", id=f"{c['name']}-sqlite") for c in CASES if c["name"] in FIRST or "sqlite" in EVERY] + \
    [pytest.param(c, engine, id=f"{c['name']}-{engine}", marks=pytest.mark.slow) for engine in SERVERS for c in CASES
     if c["name"] in FIRST or engine in EVERY] + \
    [pytest.param(c, f"{engine}-warehouse", id=f"{c['name']}-{engine}-warehouse", marks=pytest.mark.slow)  # rollups stored there
     for engine in ("postgres", "mysql") for c in CASES if c["name"] in FIRST]


@pytest.fixture(scope="module")
def stores() -> Iterator[None]:
    """Drops the rollups' schema this module made on the servers (rollups stored in the warehouse)."""
    yield
    try:
        import psycopg

        with psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5) as pg:
            pg.execute(f"DROP SCHEMA IF EXISTS {STORE} CASCADE")
    except Exception:  # noqa: BLE001 - not reachable: nothing was made there
        pass
    try:
        import pymysql

        my = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
        my.cursor().execute(f"DROP DATABASE IF EXISTS {STORE}")
        my.close()
    except Exception:  # noqa: BLE001 - not reachable: nothing was made there
        pass


@pytest.mark.parametrize(("case", "engine"), PARAMS)
def test_case_equals_its_reference_with_rollups_on_and_off(folders, reference, stores, case: dict, engine: str) -> None:
    engine, _, where = engine.partition("-")
    if engine in (case.get("refused_on") or {}):
        pytest.skip(f"refused on {engine}")
    folder = folders(case.get("layer", "shop"), engine)
    for stale in folder.glob("rollups.duckdb*"):
        stale.unlink()
    plain = load_layer(folder) if not (folder / "rollups.yml").exists() else None
    (folder / "rollups.yml").unlink(missing_ok=True)
    smq = case["smq"]
    if not _expressible(smq, engine):
        pytest.skip(f"its filters cannot be written in {engine}'s SQL")
    declared = _rollups_for(plain or load_layer(folder), smq)
    storage = {"warehouse": True, "schema": STORE, "connection": server_connection(engine)} if where else None
    layer = _declare(folder, declared, storage) if declared else None
    if layer is None:
        pytest.skip("no rollup can be declared over this case")
    executor = open_for_layer(layer)
    try:
        rollups.build(layer, executor)
        expected = _rows(reference.execute(case["reference"], max_rows=100_000).rows)
        routed = layer.compile_routed(smq)
        # the embedded store answers alone when every aggregation reads a rollup, else mixed with the facts (mix.py)
        whole = all(d.rollup for d in routed.decisions)
        assert routed.store == ("warehouse" if where or not routed.rollups else "rollups" if whole else "mixed")
        ANSWERED["rollup" if routed.rollups else "facts"] += 1
        for on in (True, False):
            actual = _rows(executor.execute(compiled_sql(layer, smq, rollups=on), max_rows=100_000,
                                             timeout_s=300).rows)
            assert_same_rows(actual, expected, case.get("ordered", False),
                             f"{case['name']} on {engine}, rollups {'on' if on else 'off'} ({routed.rollups or 'facts'})")
    finally:
        executor.close()
        (folder / "rollups.yml").unlink(missing_ok=True)


def test_many_cases_were_answered_from_rollups() -> None:
    if not ANSWERED["rollup"] + ANSWERED["facts"]:
        pytest.skip("run with the cases")
    print(f"answered from rollups: {ANSWERED}")
    assert ANSWERED["rollup"] >= 0.3 * (ANSWERED["rollup"] + ANSWERED["facts"]), ANSWERED
