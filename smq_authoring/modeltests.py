"""`smq test`: model tests kept next to the models (`<layer>/tests/*.yml`), run on the database.

A test is either a query with its expected result, or an assertion about the layer's assumptions
(keys are keys, joins do not fan out, references resolve, a metric is never negative). The SQL of
assertions is built with sqlglot from the layer's own objects, so a test checks exactly what the
compiler relies on. Every outcome carries the SQL it ran, so a failure can be reproduced by hand.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlglot import exp

from engine import Layer
from engine.errors import EngineError, LayerError, Location
from engine.layer.exprs import qualify
from engine.layer.model import JoinEdge, Model
from engine.layer.yamlpos import YMap, YSeq, load_yaml, where

from .layerdoc import plain

Runner = Callable[[str], tuple[list[str], list[list[Any]]]]
ASSERTIONS = ("no_null_keys", "unique_key", "join_keeps_all_rows", "no_orphans", "metric_non_negative", "row_count")
ENTRY_KEYS = ("name", "description", "smq", "sql", "expect", "max_share", "group_by", "filters", *ASSERTIONS)
EXPECT_KEYS = ("rows", "ordered", "tolerance", "sql", "row_count")
SHOWN_ROWS = 10


@dataclass
class TestCase:
    name: str
    kind: str  # smq | sql | one of ASSERTIONS
    spec: dict[str, Any]
    location: Location


@dataclass
class Outcome:
    case: TestCase
    passed: bool
    message: str = ""
    sql: list[str] = field(default_factory=list)
    error: bool = False  # the test could not run (a bad test, a query error)


class TestSpecError(ValueError):
    """A test entry that cannot be run as written."""


# -- reading test files ---------------------------------------------------------------------------


def test_files(layer_dir: Path) -> list[Path]:
    folder = layer_dir / "tests"
    return sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")]) if folder.is_dir() else []


def load_tests(layer_dir: Path, display: Callable[[Path], str] = str) -> tuple[list[TestCase], list[LayerError]]:
    """Every test of a layer, and the entries that are malformed (with their file:line:col)."""
    cases: list[TestCase] = []
    errors: list[LayerError] = []
    for path in test_files(layer_dir):
        shown = display(path)
        try:
            raw = load_yaml(path, shown)
        except LayerError as err:
            errors.append(err)
            continue
        items = raw.get("tests") if isinstance(raw, YMap) else None
        if raw is None:
            continue
        if not isinstance(items, YSeq):
            errors.append(LayerError("expected `tests:` with a list of tests", location=Location(shown, 1, 1)))
            continue
        for i, item in enumerate(items):
            loc = where(shown, items, i, field=f"tests[{i}]")
            try:
                cases.append(_case(item, loc))
            except TestSpecError as err:
                errors.append(LayerError(f"tests[{i}]: {err}", code="invalid_test", location=loc))
    return cases, errors


def _case(item: Any, loc: Location) -> TestCase:
    if not isinstance(item, YMap):
        raise TestSpecError("a test is a mapping (name, smq, expect) or an assertion such as `no_null_keys: Model`")
    unknown = [k for k in item if k not in ENTRY_KEYS]
    if unknown:
        raise TestSpecError(f"unknown key '{unknown[0]}' (allowed: {', '.join(ENTRY_KEYS)})")
    spec = plain(item)
    kinds = [k for k in ASSERTIONS if k in spec]
    if len(kinds) > 1:
        raise TestSpecError(f"one assertion per test, got {', '.join(kinds)}")
    if kinds:
        kind = kinds[0]
    elif "smq" in spec:
        kind = "smq"
    elif "sql" in spec:
        kind = "sql"
    else:
        raise TestSpecError(f"nothing to test: give smq or sql with expect, or one of {', '.join(ASSERTIONS)}")
    if kind in ("smq", "sql"):
        expect = spec.get("expect")
        if not isinstance(expect, dict) or not any(k in expect for k in ("rows", "sql", "row_count")):
            raise TestSpecError("expect: give rows, sql (a hand-written query with the same result) or row_count")
        bad = [k for k in expect if k not in EXPECT_KEYS]
        if bad:
            raise TestSpecError(f"expect: unknown key '{bad[0]}' (allowed: {', '.join(EXPECT_KEYS)})")
    name = str(spec.get("name") or _default_name(kind, spec))
    return TestCase(name, kind, spec, loc)


def _default_name(kind: str, spec: dict[str, Any]) -> str:
    target = spec.get(kind)
    if kind == "row_count" and isinstance(target, dict):
        return f"row_count {target.get('min', '')}..{target.get('max', '')}"
    return f"{kind} {target if isinstance(target, str) else ''}".strip()


# -- running ---------------------------------------------------------------------------------------------


def run_tests(layer: Layer, cases: list[TestCase], run: Runner) -> list[Outcome]:
    return [run_case(layer, case, run) for case in cases]


def run_case(layer: Layer, case: TestCase, run: Runner) -> Outcome:
    checker = _CHECKS[case.kind]
    ran: list[str] = []

    def traced(sql: str) -> tuple[list[str], list[list[Any]]]:
        ran.append(sql)
        return run(sql)

    try:
        passed, message = checker(layer, case.spec, traced)
        return Outcome(case, passed, message, ran)
    except TestSpecError as err:
        return Outcome(case, False, str(err), ran, error=True)
    except EngineError as err:
        return Outcome(case, False, err.formatted(), ran, error=True)
    except Exception as err:  # noqa: BLE001 - a database error is this test's failure, not the run's
        return Outcome(case, False, f"{type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}", ran, error=True)


# -- SQL for assertions ------------------------------------------------------------------------------------


def _model(layer: Layer, name: Any) -> Model:
    model = layer.models.get(str(name))
    if model is None:
        raise TestSpecError(f"unknown model '{name}'")
    return model


def _from(model: Model, alias: str) -> exp.Expr:
    return exp.alias_(model.source.copy(), alias, table=True)


def _count(*, from_: exp.Expr) -> exp.Select:
    return exp.select(exp.Count(this=exp.Star())).from_(from_)


def _scalar(run: Runner, query: exp.Expression, dialect: str) -> int:
    _, rows = run(query.sql(dialect=dialect))
    return int(rows[0][0] or 0)


def _edge(layer: Layer, ref: Any) -> JoinEdge:
    """`Model.key`, `key` alone when one edge has it, or {from: Model, key: key}."""
    if isinstance(ref, dict):
        model, key = ref.get("from"), ref.get("key")
    else:
        model, _, key = str(ref).rpartition(".")
    found = [e for e in layer.semantic.joins if e.key == key and (not model or model in (e.from_model, e.to_model))]
    if model:  # an edge leaving the model is meant before one entering it
        leaving = [e for e in found if e.from_model == model]
        found = leaving or found
    if len(found) != 1:
        keys = sorted({f"{e.from_model}.{e.key}" for e in layer.semantic.joins})
        raise TestSpecError(f"'{ref}' names {'no' if not found else 'more than one'} join edge (write Model.key; edges: {', '.join(keys)})")
    return found[0]


def _walks(edge: JoinEdge) -> list[tuple[str, exp.Expression, str, exp.Expression]]:
    """(many side, its key, one side, its key) for each direction that must not fan out."""
    forward = (edge.from_model, edge.left_node, edge.to_model, edge.right_node)
    backward = (edge.to_model, edge.right_node, edge.from_model, edge.left_node)
    return {"many_to_one": [forward], "one_to_many": [backward], "one_to_one": [forward, backward]}[edge.relationship]


def check_no_null_keys(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    model = _model(layer, spec["no_null_keys"])
    if not model.primary_key_nodes:
        raise TestSpecError(f"model {model.name} has no primary_key")
    condition = exp.or_(*[exp.Is(this=qualify(n, "t"), expression=exp.Null()) for n in model.primary_key_nodes])
    nulls = _scalar(run, _count(from_=_from(model, "t")).where(condition), layer.dialect)
    return nulls == 0, f"{nulls:,} row(s) of {model.name} have a NULL in the primary key ({', '.join(model.primary_key)})" if nulls else ""


def check_unique_key(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    model = _model(layer, spec["unique_key"])
    if not model.primary_key_nodes:
        raise TestSpecError(f"model {model.name} has no primary_key")
    keys = [qualify(n, "t") for n in model.primary_key_nodes]
    query = (exp.select(*[k.copy() for k in keys], exp.Count(this=exp.Star()).as_("n")).from_(_from(model, "t"))
             .group_by(*[k.copy() for k in keys]).having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
             .order_by(exp.Ordered(this=exp.column("n"), desc=True)).limit(5))
    _, rows = run(query.sql(dialect=layer.dialect))
    if not rows:
        return True, ""
    shown = "; ".join(f"{tuple(r[:-1]) if len(r) > 2 else r[0]!r} x{r[-1]}" for r in rows)
    return False, f"primary key ({', '.join(model.primary_key)}) of {model.name} is not unique, e.g. {shown}"


def check_join_keeps_all_rows(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    edge = _edge(layer, spec["join_keeps_all_rows"])
    for many, many_key, one, one_key in _walks(edge):
        base, other = _model(layer, many), _model(layer, one)
        on = exp.EQ(this=qualify(many_key, "b"), expression=qualify(one_key, "o"))
        before = _scalar(run, _count(from_=_from(base, "b")), layer.dialect)
        after = _scalar(run, _count(from_=_from(base, "b")).join(_from(other, "o"), on=on, join_type="left"), layer.dialect)
        if after != before:
            return False, (f"joining {base.name} to {other.name} along '{edge.key}' gives {after:,} rows for {before:,} {base.name} rows: "
                           f"{other.name}'s side of the join ({one_key.sql(dialect=layer.dialect)}) is not unique, so the edge "
                           f"is not {edge.relationship}")
    return True, ""


def check_no_orphans(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    edge = _edge(layer, spec["no_orphans"])
    many, many_key, one, one_key = _walks(edge)[0]
    base, other = _model(layer, many), _model(layer, one)
    key = qualify(many_key, "b")
    parts = list(key.expressions) if isinstance(key, exp.Tuple) else [key]  # a composite key: (a, b)
    targets = list(qualify(one_key, "o").expressions) if isinstance(one_key, exp.Tuple) else [qualify(one_key, "o")]
    match = exp.select(exp.Literal.number(1)).from_(_from(other, "o")).where(
        exp.and_(*[exp.EQ(this=t, expression=p.copy()) for t, p in zip(targets, parts)]))
    present = [exp.Not(this=exp.Is(this=p.copy(), expression=exp.Null())) for p in parts]
    orphan = exp.and_(*present, exp.Not(this=exp.Exists(this=match)))
    total = _scalar(run, _count(from_=_from(base, "b")), layer.dialect)
    orphans = _scalar(run, _count(from_=_from(base, "b")).where(orphan.copy()), layer.dialect)
    allowed = float(spec.get("max_share") or 0)
    share = orphans / total if total else 0.0
    if share <= allowed:
        return True, f"{orphans:,} of {total:,} rows without a match" if orphans else ""
    _, examples = run(exp.select(*[p.copy() for p in parts]).distinct().from_(_from(base, "b")).where(orphan.copy()).limit(5)
                      .sql(dialect=layer.dialect))
    shown = ", ".join(repr(r[0] if len(r) == 1 else tuple(r)) for r in examples)
    return False, (f"{orphans:,} of {total:,} {base.name} rows ({share:.1%}, allowed {allowed:.1%}) have a {many_key.sql(dialect=layer.dialect)} "
                   f"that matches no {other.name} row, e.g. {shown}")


def _run_smq(layer: Layer, smq: Any, run: Runner) -> tuple[list[str], list[list[Any]]]:
    if not isinstance(smq, dict):
        raise TestSpecError("smq: expected a mapping (metrics, group_by, filters, order_by, limit)")
    return run(layer.compile(smq))


def check_metric_non_negative(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    name = str(spec["metric_non_negative"])
    smq = {"metrics": [name], "group_by": list(spec.get("group_by") or []), "filters": list(spec.get("filters") or [])}
    columns, rows = _run_smq(layer, {k: v for k, v in smq.items() if v}, run)
    negative = [r for r in rows if isinstance(r[-1], (int, float)) and not isinstance(r[-1], bool) and r[-1] < 0]
    if not negative:
        return True, ""
    return False, f"{len(negative)} of {len(rows)} row(s) of {name} are negative, e.g. {_rows_text(columns, negative)}"


def check_row_count(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    body = spec["row_count"]
    if not isinstance(body, dict) or "smq" not in body and "sql" not in body:
        raise TestSpecError("row_count: expected {smq: {...} (or sql: ...), min: N, max: N}")
    _, rows = _run_smq(layer, body["smq"], run) if "smq" in body else run(str(body["sql"]))
    low, high = body.get("min"), body.get("max")
    if (low is not None and len(rows) < int(low)) or (high is not None and len(rows) > int(high)):
        return False, f"{len(rows)} row(s), expected between {low if low is not None else 0} and {high if high is not None else 'any'}"
    return True, ""


def check_expected(layer: Layer, spec: dict[str, Any], run: Runner) -> tuple[bool, str]:
    columns, rows = _run_smq(layer, spec["smq"], run) if "smq" in spec else run(str(spec["sql"]))
    expect = spec["expect"]
    if "row_count" in expect:
        wanted = int(expect["row_count"])
        return len(rows) == wanted, "" if len(rows) == wanted else f"{len(rows)} row(s), expected {wanted}"
    if "sql" in expect:
        _, wanted_rows = run(str(expect["sql"]))
    else:
        wanted_rows = expect.get("rows") or []
        if not isinstance(wanted_rows, list) or not all(isinstance(r, list) for r in wanted_rows):
            raise TestSpecError("expect.rows: a list of rows, each a list of values in column order")
    smq = spec["smq"] if isinstance(spec.get("smq"), dict) else {}
    ordered = bool(expect.get("ordered", bool(smq.get("order_by")) if "smq" in spec else False))
    tolerance = float(expect.get("tolerance", 1e-6))
    return compare_rows(columns, rows, wanted_rows, ordered=ordered, tolerance=tolerance)


_CHECKS: dict[str, Callable[[Layer, dict[str, Any], Runner], tuple[bool, str]]] = {
    "no_null_keys": check_no_null_keys, "unique_key": check_unique_key, "join_keeps_all_rows": check_join_keeps_all_rows,
    "no_orphans": check_no_orphans, "metric_non_negative": check_metric_non_negative, "row_count": check_row_count,
    "smq": check_expected, "sql": check_expected,
}


# -- comparing results ----------------------------------------------------------------------------------

_TIMESTAMP = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2})?(\.\d+)?)")


def normalize(value: Any) -> Any:
    """One form per value across drivers and YAML: booleans as 0/1, dates as ISO text, decimals as floats."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        m = _TIMESTAMP.fullmatch(value)
        if m:
            return f"{m.group(1)} {m.group(2)}"
    return value


def same_value(a: Any, b: Any, tolerance: float) -> bool:
    a, b = normalize(a), normalize(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)
    return str(a) == str(b)


def _sort_key(row: list[Any]) -> tuple:
    out = []
    for v in row:
        v = normalize(v)
        if v is None:
            out.append((0, 0.0, ""))
        elif isinstance(v, (int, float)):
            out.append((1, round(float(v), 6), ""))
        else:
            out.append((2, 0.0, str(v)))
    return tuple(out)


def compare_rows(columns: list[str], actual: list[list[Any]], expected: list[list[Any]], *, ordered: bool,
                 tolerance: float) -> tuple[bool, str]:
    """Whether two results hold the same rows (in the same order when `ordered`), and if not, how they differ."""
    if not ordered:
        actual, expected = sorted(actual, key=_sort_key), sorted(expected, key=_sort_key)
    same = len(actual) == len(expected) and all(
        len(a) == len(e) and all(same_value(x, y, tolerance) for x, y in zip(a, e)) for a, e in zip(actual, expected))
    if same:
        return True, ""
    lines = [f"expected {len(expected)} row(s), got {len(actual)}" + ("" if ordered else " (order ignored)"),
             f"  columns:  {columns}"]
    unmatched_actual = list(actual)
    missing = []
    for e in expected:
        hit = next((i for i, a in enumerate(unmatched_actual)
                    if len(a) == len(e) and all(same_value(x, y, tolerance) for x, y in zip(a, e))), None)
        if hit is None:
            missing.append(e)
        else:
            unmatched_actual.pop(hit)
    if ordered and not missing and not unmatched_actual:
        lines.append("  same rows, different order")
    for label, rows in (("expected, not returned", missing), ("returned, not expected", unmatched_actual)):
        for row in rows[:SHOWN_ROWS]:
            lines.append(f"  {label}: {[normalize(v) for v in row]}")
        if len(rows) > SHOWN_ROWS:
            lines.append(f"  ... and {len(rows) - SHOWN_ROWS} more {label}")
    return False, "\n".join(lines)


def _rows_text(columns: list[str], rows: list[list[Any]]) -> str:
    return "; ".join(str(dict(zip(columns, (normalize(v) for v in r)))) for r in rows[:3])


# -- report ----------------------------------------------------------------------------------------------


def format_outcome(outcome: Outcome, *, verbose: bool = False) -> str:
    case = outcome.case
    status = "PASS" if outcome.passed else ("ERROR" if outcome.error else "FAIL")
    head = f"{status}  {case.name}  ({case.location})"
    if outcome.passed and not verbose:
        return head
    body = [f"      {line}" for line in outcome.message.splitlines() if line] if outcome.message else []
    if not outcome.passed or verbose:
        for sql in outcome.sql:
            body.append("      SQL: " + sql.replace("\n", "\n           "))
    return "\n".join([head, *body])


def summary(outcomes: list[Outcome]) -> str:
    passed = sum(o.passed for o in outcomes)
    errors = sum(o.error for o in outcomes)
    failed = len(outcomes) - passed - errors
    return f"{passed} passed, {failed} failed, {errors} error(s)"
