"""Mixed queries, differentially: every engine reference case that plans several aggregations is answered with a rollup
declared over ONE of them at a time (each in turn: both ways for two), so the router mixes that rollup (the embedded
store) with the facts for the others; the answer must equal the case's reference, with rollups on and off.

DuckDB warehouses mix (engine/rollups/mix.py); on SQLite a mix is refused and the facts answer (the same numbers,
checked on the cases of cases.yml). The last test checks that the mixing path was taken for many cases."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from engine import load_layer
from engine.resolve.names import Resolver
from engine.resolve.query import parse_smq
from engine.resolve.query_resolver import QueryResolver
from smq_db import rollups
from smq_db.compiled import compiled_sql
from smq_db.executors.duckdb import DuckDBExecutor
from smq_db.open import open_for_layer

from ..engine.test_engines import CASES, assert_same_rows
from .test_rollups_differential import FIRST, _declare, _layer_folder, _rollups_for, _rows

MIXED: dict[str, int] = {"mixed": 0, "one store": 0, "facts": 0}
PARAMS = [pytest.param(c, "duckdb", id=f"{c['name']}-duckdb") for c in CASES] + \
    [pytest.param(c, "sqlite", id=f"{c['name']}-sqlite") for c in CASES if c["name"] in FIRST]


@pytest.fixture(scope="module")
def mixed_folders(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path]) -> dict[tuple[str, str], Path]:
    tmp = tmp_path_factory.mktemp("rollup-mixed")
    return {(name, engine): _layer_folder(tmp, name, engine, demo_files[engine])
            for name in ("shop", "shop_with_extra_metrics", "shop_extra_on_time_axis") for engine in ("duckdb", "sqlite")}


@pytest.fixture(scope="module")
def mixed_reference(demo_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Any:
    copy = tmp_path_factory.mktemp("rollup-mixed-reference") / "shop.duckdb"  # a copy of its own, as the differential's
    shutil.copyfile(demo_files["duckdb"], copy)
    executor = DuckDBExecutor(copy)
    yield executor
    executor.close()


def _aggregations(folder: Path, smq: dict) -> int:
    layer = load_layer(folder)
    resolved = QueryResolver(layer.semantic, layer.graph, Resolver(layer.semantic), layer._dialect(None)).resolve(parse_smq(smq))
    return len(resolved.aggregations)


@pytest.mark.parametrize(("case", "engine"), PARAMS)
def test_a_rollup_over_one_aggregation_mixed_with_the_facts(mixed_folders, mixed_reference, case: dict, engine: str) -> None:
    if engine in (case.get("refused_on") or {}):
        pytest.skip(f"refused on {engine}")
    folder = mixed_folders[(case.get("layer", "shop"), engine)]
    (folder / "rollups.yml").unlink(missing_ok=True)
    if _aggregations(folder, case["smq"]) < 2:
        pytest.skip("one aggregation: nothing to mix (tests/smq_db/test_rollups_differential.py)")
    declared = _rollups_for(load_layer(folder), case["smq"])
    expected = _rows(mixed_reference.execute(case["reference"], max_rows=100_000).rows)
    for one in declared:
        for stale in folder.glob("rollups.duckdb*"):
            stale.unlink()
        layer = _declare(folder, [one])
        if layer is None:
            continue
        executor = open_for_layer(layer)
        try:
            rollups.build(layer, executor)
            rollups.follow_store(layer)
            routed = layer.compile_routed(case["smq"])
            MIXED["mixed" if routed.store == "mixed" else "one store" if routed.rollups else "facts"] += 1
            if engine != "duckdb":
                assert routed.store != "mixed", routed.decisions
            for on in (True, False):
                actual = _rows(executor.execute(compiled_sql(layer, case["smq"], rollups=on), max_rows=100_000, timeout_s=300).rows)
                assert_same_rows(actual, expected, case.get("ordered", False),
                                 f"{case['name']} on {engine}, rollup {one['name']} over {one['model']}, rollups "
                                 f"{'on' if on else 'off'} ({routed.store}: {[d.as_dict() for d in routed.decisions]})")
        finally:
            executor.close()
            (folder / "rollups.yml").unlink(missing_ok=True)


def test_many_cases_were_mixed() -> None:
    if not sum(MIXED.values()):
        pytest.skip("run with the cases")
    print(f"mixed: {MIXED}")
    assert MIXED["mixed"] >= 10, MIXED


ROLE_QUERIES = [
    {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__status"]},
    {"metrics": ["averageOrderValue", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"]},
    {"metrics": ["OrdersModel__customerCount", "OrderItemsModel__lineCount"], "group_by": ["OrdersModel__channel"]},
]


@pytest.mark.parametrize("role", [None, "web_only", "de_analyst"])
def test_mixed_answers_under_a_role_equal_the_facts(tmp_path: Path, demo_files: dict[str, Path], role: str | None) -> None:
    from ..engine.test_rollups_routing import ROLES, ROLLUPS

    folder = _layer_folder(tmp_path, "shop", "duckdb", demo_files["duckdb"])
    (folder / "rollups.yml").write_text(ROLLUPS.replace("[revenuePerUnit, averageUnitPrice, lineCount]", "[lineCount]"))
    db = (folder / "database.yml").read_text().replace("  roles:\n", "  roles:\n" + ROLES.strip("\n") + "\n", 1)
    (folder / "database.yml").write_text(db)
    layer = load_layer(folder)
    executor = open_for_layer(layer)
    try:
        rollups.build(layer, executor)
        rollups.follow_store(layer)
        stores = []
        for smq in ROLE_QUERIES:
            stores.append(layer.compile_routed(smq, role).store)
            on = executor.execute(compiled_sql(layer, smq, role), max_rows=100_000).rows
            off = executor.execute(compiled_sql(layer, smq, role, rollups=False), max_rows=100_000).rows
            assert_same_rows(_rows(on), _rows(off), False, f"{smq} as {role}")
        # de_analyst's filter is on no rollup dimension; web_only's reaches the items over a left join (route.py rule 6)
        assert stores == {None: ["mixed"] * 3, "web_only": ["mixed", "mixed", "warehouse"], "de_analyst": ["warehouse"] * 3}[role], stores
    finally:
        executor.close()
