"""A few Spider 1.0 databases: the layer validates and every foreign key of tables.json is a join,
with the DDL's declarations and, for those with clean names, from names and values alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import load_layer
from smq_authoring import init_layer

from ..conftest import SHARED

SPIDER = SHARED / "data" / "spider1"
pytestmark = pytest.mark.skipif(not (SPIDER / "tables.json").exists(), reason="Spider 1.0 data not present")


@pytest.fixture(scope="module")
def tables() -> dict[str, dict]:
    return {e["db_id"]: e for e in json.loads((SPIDER / "tables.json").read_text())}


def gold(entry: dict) -> set[tuple[str, str, str, str]]:
    names, columns = entry["table_names_original"], entry["column_names_original"]
    return {(names[columns[a][0]].lower(), columns[a][1].lower(), names[columns[b][0]].lower(), columns[b][1].lower())
            for a, b in entry["foreign_keys"]}


def joined(result) -> set[tuple[str, str, str, str]]:
    pairs = set()
    for link in result.links:
        for a, b, c, d in link.pairs():
            pairs |= {(a, b, c, d), (c, d, a, b)}
    return pairs


@pytest.mark.parametrize("db, names_only", [("concert_singer", True), ("car_1", False), ("flight_2", False), ("world_1", True)])
def test_spider_database(db: str, names_only: bool, tables: dict[str, dict], tmp_path: Path) -> None:
    url = f"sqlite:///{SPIDER / 'database' / db / (db + '.sqlite')}"
    result = init_layer(url, db, tmp_path / db)
    load_layer(tmp_path / db)
    assert gold(tables[db]) <= joined(result)
    assert not result.tests_failed
    if names_only:  # the DDL's foreign keys ignored: names and values find them all
        inferred = init_layer(url, db, tmp_path / f"{db}_inferred", use_declared_fks=False)
        assert gold(tables[db]) <= joined(inferred)


def test_flight_2_airport_codes_are_trimmed(tmp_path: Path) -> None:
    """flights.SourceAirport holds ' APG' where airports.AirportCode holds 'APG': the join cleans it."""
    result = init_layer(f"sqlite:///{SPIDER / 'database' / 'flight_2' / 'flight_2.sqlite'}", "flight_2", tmp_path / "f")
    layer = load_layer(tmp_path / "f")
    lefts = {e.key: e.left for e in layer.semantic.joins}
    assert lefts["source_airport"] == "TRIM(SourceAirport)" and lefts["dest_airport"] == "TRIM(DestAirport)"
    assert any("after trimming spaces" in link.evidence for link in result.links)
