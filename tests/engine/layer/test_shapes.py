"""Expression shapes (engine/layer/shapes.py) give exactly what a full parse gives, errors included.

Differential: every text of the repository's YAML (semantic_models/, the tests' fixtures, ../shared/data) and a set of
tricky snippets, in every supported dialect, each parsed through `parse_row_expression` (which learns and then reuses
skeletons) and in full, twice, and again with its names swapped for others (the same skeleton, served from the first
text's tree). A counter of the shape path's hits fails the test if the path is never taken.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlglot import exp

from engine.dialects import SUPPORTED_DIALECTS
from engine.layer import exprs, shapes
from engine.layer.exprs import ExprError, parse_row_expression

ROOT = Path(__file__).resolve().parents[3]

TRICKY = [
    "amount * (1 - COALESCE(discount, 0))", "CAST(created_at AS DATE)", "SUM(x)", "t.col", "t.col + s.other",
    "x + x", "1e5 * x", "x * 1e-5", "x + 1.e5", "x + .5", "0x1F + y", "INTERVAL 1 DAY", "d + INTERVAL 3 day",
    "x IS NOT NULL", "x IS NULL AND y > 2", "CASE WHEN a > 1 THEN b ELSE c END", "CASE a WHEN 1 THEN b END",
    "x::date", "x::DECIMAL(10, 2) * y", "CAST(x AS VARCHAR(20))", "'text' || x", "x = 'shipped'", '"quoted" + 1',
    "`back` + 1", "[bracket] + 1", "x -- comment", "x /* c */ + y", "x # c", "@p + x", "$1 + x", ":name + x", "? + x",
    "{{ Dimension('a__b') }}", "été + 1", "first + last", "nulls + zone", "ignore + respect", "FIRST_VALUE(x) OVER (ORDER BY y)",
    "FIRST_VALUE(x IGNORE NULLS) OVER (PARTITION BY a ORDER BY b NULLS FIRST)", "LAST_VALUE(x) RESPECT NULLS OVER (ORDER BY y)",
    "ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY c DESC)", "SUM(x) OVER (ORDER BY d ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    "ts AT TIME ZONE tz", "x AS y", "a b", "SELECT x FROM t", "x; y", "x +", "COUNT(DISTINCT x)", "x IN (a, b, 1)",
    "x BETWEEN a AND b", "NOT x", "-x", "x % y", "x DIV y", "x || y", "x LIKE y", "x ILIKE y ESCAPE z", "COALESCE(a, b, c)",
    "DATE_TRUNC(month, x)", "DATE_TRUNC('month', x)", "EXTRACT(year FROM x)", "date + 1", "status = status2", "name || id",
    "my_fn(a, b)", "my_fn (a)", "schema1.my_fn(a)", "a.b.c", "catalog1.db1.t1.col1", "x1.e5", "1a + b", "x\n  + y",
    "IF(a, b, c)", "IFF(a, b, c)", "a <=> b", "a != b", "a <> b", "~a", "a & b | c ^ d", "a << 2", "TRY_CAST(x AS INT)",
    "x::TIMESTAMP_NTZ", "x:y", "array_col[1]", "STRUCT(a, b)", "MAP(a, b)", "x ->> y", "x -> y", "DIV0(a, b)",
    "TRANSFORM(arr, elem_a -> elem_b + 1)", "TRANSFORM(arr, elem_a -> elem_a + 1)", "LIST_TRANSFORM(arr, elem_a -> elem_a * k)", "Abc + abc",
    "FILTER(arr, (elem_a, idx) -> elem_a > idx)", "FILTER(arr, (elem_a, idx) -> elem_a > other)",
]


def _yaml_texts() -> list[str]:
    texts: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and 0 < len(value) <= 300:
            texts.add(value)

    for root in (ROOT / "semantic_models", ROOT / "tests", ROOT.parent / "shared" / "data"):
        for path in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")]) if root.is_dir() else []:
            try:
                for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
                    walk(doc)
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
    return sorted(texts)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """No warm-up, no skeleton known; counts the shape path's hits."""
    monkeypatch.setattr(shapes, "WARMUP", 0)
    monkeypatch.setattr(shapes, "_shapes", {})
    hits = [0]

    def counted(shape: shapes.Shape) -> Any:
        found = shapes.shaped(shape)
        hits[0] += found is not None
        return found

    monkeypatch.setattr(exprs, "shaped", counted)
    return hits


def _full(text: str, dialect: str) -> tuple[Any, ...]:
    try:
        node, aggregate = exprs._parse_row(text.strip(), dialect)
    except ExprError as err:
        return "error", str(err), err.column
    return "ok", node, aggregate


def _check(text: str, dialect: str) -> None:
    want = _full(text, dialect)
    try:
        node, aggregate = parse_row_expression(text, dialect)
        got: tuple[Any, ...] = ("ok", node, aggregate)
    except ExprError as err:
        got = ("error", str(err), err.column)
    assert got[0] == want[0], (text, dialect, got, want)
    if got[0] == "error":
        assert got[1:] == want[1:], (text, dialect)
        return
    assert got[2] == want[2], (text, dialect)
    assert shapes.same(got[1], want[1]), (text, dialect, repr(got[1]), repr(want[1]))
    assert got[1] == want[1] and got[1].sql(dialect) == want[1].sql(dialect), (text, dialect)


POOL = ["x", "Amount_Total", "t", "col_1", "a1b2", "_hidden", "customer_id", "zq", "price"]


def _variants(text: str, dialect: str) -> list[str]:
    """`text` with its names swapped for others of the pool: the same skeleton when the pool's name is not reserved."""
    shape = shapes.skeleton(text, dialect)
    if shape is None or not shape[2]:
        return []
    out = [re.sub(r"zqz(\d+)", lambda m: shape[2][int(m.group(1))].swapcase(), shape[1]),
           re.sub(r"zqz(\d+)", lambda m: shape[2][0], shape[1])]  # every name the same: other comparisons between them
    for shift in range(0, len(POOL), 2):
        out.append(re.sub(r"zqz(\d+)", lambda m: POOL[(int(m.group(1)) + shift) % len(POOL)], shape[1]))
    return out


def _is_ident(text: str, dialect: str = "duckdb") -> bool:  # the plain-name fast path comes before shapes; not theirs to check
    return isinstance(text, str) and bool(exprs._IDENT.match(text.strip())) and text.strip().upper() not in exprs._keywords(dialect)


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
def test_every_repository_expression_and_tricky_snippet_parses_as_in_full(dialect: str, fresh: list[int]) -> None:
    texts = [t for t in [*TRICKY, *_yaml_texts()] if t.strip() and not _is_ident(t, dialect)]
    for text in texts:
        for variant in (text, text, *_variants(text, dialect)):
            if not _is_ident(variant, dialect):
                _check(variant, dialect)
    assert fresh[0] > len(texts) // 4, fresh[0]  # the second parse of every shaped text at least


def test_a_repeated_shape_is_served_from_its_skeleton(fresh: list[int]) -> None:
    first = parse_row_expression("amount_1 * (1 - COALESCE(discount_1, 0))", "duckdb")[0]
    assert fresh[0] == 0
    second = parse_row_expression("amount_2 * (1 - COALESCE(discount_2, 0))", "duckdb")[0]
    assert fresh[0] == 1
    assert second.sql() == "amount_2 * (1 - COALESCE(discount_2, 0))" and first.sql().startswith("amount_1")
    assert second is not parse_row_expression("amount_2 * (1 - COALESCE(discount_2, 0))", "duckdb")[0]  # a copy each time
    assert [c.name for c in second.find_all(exp.Column)] == ["amount_2", "discount_2"]


def test_words_the_parser_reads_are_never_placeholders() -> None:
    for word in ("first", "LAST", "nulls", "Ignore", "respect", "zone", "interval", "date", "and", "over"):
        shape = shapes.skeleton(f"{word} + amount", "duckdb")
        assert shape is None or word not in shape[2], (word, shape)


def test_which_names_are_equal_is_part_of_the_shape(fresh: list[int]) -> None:
    for text in ("TRANSFORM(arr, elem_a -> elem_b + 1)", "TRANSFORM(arr, elem_a -> elem_a + 1)", "TRANSFORM(arr, elem_c -> elem_c + 1)"):
        _check(text, "duckdb")
    assert fresh[0] == 1  # the last one only: a lambda's parameter read in its body
    assert shapes.skeleton("Price + price", "duckdb") is None


def test_a_skeleton_that_parses_otherwise_is_never_used(fresh: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shapes, "_reserved", lambda dialect: frozenset())  # every word a placeholder, keywords too
    _check("x IS NOT NULL", "duckdb")
    _check("y IS NOT NULL", "duckdb")
    assert fresh[0] == 0
    assert shapes._shapes[("duckdb", "zqz0 zqz1 zqz2 zqz3")] is shapes.NEVER


def test_errors_are_the_full_parse_errors(fresh: list[int]) -> None:
    for text in ("amount_1 * (1 - COALESCE(discount_1, 0))", "amount_1 * (1 - COALESCE(discount_1, 0)", "a +", "x AS y"):
        _check(text, "duckdb")
    with pytest.raises(ExprError) as err:
        parse_row_expression("amount_1 * (1 - COALESCE(discount_1, 0)", "duckdb")
    assert err.value.column is not None
