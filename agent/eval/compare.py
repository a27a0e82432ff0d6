"""Comparing two result tables the way the official Spider 2.0 evaluators do (split from scorer.py).

The same data path as the evaluators -- ``pandas.read_csv`` then ``transpose().values.tolist()`` -- and
their rules on top (missing values as 0, ``math.isclose`` with an absolute tolerance, ignore_order's
sort by string form). ``scorer.py`` applies these comparisons to files and eval entries;
``results_equivalent`` applies them to two in-memory results (plan voting's equivalence, passed to the
agent by its callers through ``equivalence.py``). See ``docs/evaluation-scoring.md``.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Absolute tolerance for numbers (``math.isclose``'s rel_tol stays at 1e-9).
ABS_TOLERANCE = 1e-2


class ScoringError(Exception):
    """The official evaluator would raise here; the task scores 0."""


# --------------------------------------------------------------------------
# Reading tables
# --------------------------------------------------------------------------


def read_result_csv(path: str | os.PathLike[str] | io.StringIO) -> pd.DataFrame:
    """Read a result CSV exactly as the official evaluator does.

    Plain ``pandas.read_csv`` with its defaults: per-column type inference,
    ``NULL``/``NaN``/``None``/empty cells become missing, ``True``/``False``
    become booleans, and " 3 " or "007" become the number 3 or 7.  Any extra
    option here would change verdicts, so there is none.
    """
    return pd.read_csv(path)


def frame_from_rows(rows: Iterable[Sequence[Any]], columns: Sequence[str]) -> pd.DataFrame:
    """Turn in-memory query rows into the table the scorer would see.

    The official SQL path builds a DataFrame from the cursor rows, writes it
    to CSV and reads it back, so types are what ``read_csv`` infers (a
    ``Decimal`` becomes a float, a ``None`` becomes missing, a date becomes
    text).  Doing the same round trip keeps in-memory comparisons identical.
    """
    frame = pd.DataFrame.from_records([tuple(r) for r in rows], columns=list(columns), coerce_float=True)
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    try:
        return read_result_csv(buffer)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


# --------------------------------------------------------------------------
# Comparing column vectors
# --------------------------------------------------------------------------


def _column_vectors(frame: pd.DataFrame) -> list[list[Any]]:
    """Columns as Python lists, via the official ``transpose().values.tolist()``.

    Transposing coerces mixed dtypes together (an int column next to a float
    one comes out as floats), which changes ``str(value)`` and so the
    ignore_order sort; going through the same call keeps that behaviour.
    """
    return frame.transpose().values.tolist()


def _normalize(value: Any) -> Any:
    """Missing values become the integer 0 before anything else."""
    return 0 if pd.isna(value) else value


def _sort_key(value: Any) -> tuple[bool, str, bool]:
    """The official ignore_order key: (is None, string form, is a number)."""
    return (value is None, str(value), isinstance(value, (int, float)))


def _prepare(vector: list[Any], ignore_order: bool) -> list[Any]:
    """Normalize a column vector and, with ignore_order, sort it on its own."""
    values = [_normalize(v) for v in vector]
    return sorted(values, key=_sort_key) if ignore_order else values


def _values_match(a: Any, b: Any) -> bool:
    """Numbers (bools included) within tolerance; everything else exactly equal."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), abs_tol=ABS_TOLERANCE)
    return a == b


def _first_mismatch(gold: list[Any], pred: list[Any]) -> int | None:
    """Position of the first differing value, -1 for a length difference, None if equal."""
    if len(gold) != len(pred):
        return -1
    for i, (a, b) in enumerate(zip(gold, pred, strict=True)):
        if not _values_match(a, b):
            return i
    return None


# --------------------------------------------------------------------------
# Comparing tables
# --------------------------------------------------------------------------


def _select_gold(gold: pd.DataFrame, cols: list[Any] | None) -> tuple[pd.DataFrame, list[int]]:
    """Gold columns to check (None = all) with their 0-based positions.

    Uses ``iloc`` like the original, so an out-of-range or malformed index
    raises -- turned into a ScoringError that scores the task 0.
    """
    width = gold.shape[1]
    if cols is None:
        return gold, list(range(width))
    try:
        selected = gold.iloc[:, cols]
        positions = [int(p) for p in np.arange(width)[cols]]
    except Exception as exc:  # pandas raises IndexError/TypeError/ValueError
        raise ScoringError(
            f"condition_cols {cols!r} invalid for a gold table of {width} columns ({exc})"
        ) from exc
    return selected, positions


def _describe_column(frame: pd.DataFrame, position: int) -> str:
    return f"{position} ({str(frame.columns[position])!r})"


def _closest_hint(gold_vec: list[Any], pred_vecs: list[list[Any]], pred: pd.DataFrame,
                  ignore_order: bool) -> str:
    """Say which predicted column came closest and where it first differs."""
    best_col, best_pos = 0, -1
    for j, pred_vec in enumerate(pred_vecs):
        pos = _first_mismatch(gold_vec, pred_vec)
        if pos is not None and pos > best_pos:
            best_col, best_pos = j, pos
    where = "sorted position" if ignore_order else "row"
    return (f"closest: predicted column {_describe_column(pred, best_col)} differs at {where} "
            f"{best_pos}: gold {gold_vec[best_pos]!r} vs predicted {pred_vecs[best_col][best_pos]!r}")


def compare_frames(pred: pd.DataFrame, gold: pd.DataFrame, cols: list[Any] | None,
             ignore_order: bool, allow_empty: bool = False) -> tuple[bool, str]:
    """Core comparison: every selected gold column must equal some predicted column.

    Raises ScoringError where the official code would raise. ``allow_empty``: a header-only
    prediction is compared like any other table, so it matches a header-only gold file (local275_a),
    as in exec_result mode and for SQLite in sql mode; otherwise an empty prediction scores 0.
    """
    gold_sel, positions = _select_gold(gold, cols)
    empty_vs_empty = allow_empty and pred.shape[0] == 0 and gold.shape[0] == 0 and pred.shape[1] > 0
    if (pred.shape[0] == 0 or pred.shape[1] == 0) and not empty_vs_empty:
        return False, "empty prediction (no rows)"
    if pred.shape[0] != gold.shape[0]:
        return False, f"row count differs (predicted {pred.shape[0]} vs gold {gold.shape[0]})"
    pred_vecs = [_prepare(v, ignore_order) for v in _column_vectors(pred)]
    gold_vecs = [_prepare(v, ignore_order) for v in _column_vectors(gold_sel)]
    unmatched = [
        (pos, vec) for pos, vec in zip(positions, gold_vecs, strict=True)
        if not any(_first_mismatch(vec, p) is None for p in pred_vecs)
    ]
    if not unmatched:
        return True, f"all {len(gold_vecs)} required gold columns matched"
    pos, vec = unmatched[0]
    reason = (f"gold column {_describe_column(gold, pos)} matched no predicted column; "
              f"{_closest_hint(vec, pred_vecs, pred, ignore_order)}")
    if len(unmatched) > 1:
        reason += f" ({len(unmatched)} of {len(gold_vecs)} required gold columns unmatched)"
    return False, reason


def compare_tables(pred: pd.DataFrame, gold: pd.DataFrame,
                   condition_cols: Sequence[int] | None = None,
                   ignore_order: bool = False) -> tuple[bool, str]:
    """Compare a predicted table with one gold table.

    ``condition_cols`` lists the gold column positions that must be found in
    the prediction; empty or None means every gold column.  Returns
    ``(correct, reason)``; an invalid ``condition_cols`` gives ``False`` with
    the reason rather than raising.
    """
    cols = list(condition_cols) if condition_cols else None
    try:
        return compare_frames(pred, gold, cols, ignore_order)
    except ScoringError as exc:
        return False, str(exc)


def results_equivalent(rows_a: Iterable[Sequence[Any]], cols_a: Sequence[str],
                       rows_b: Iterable[Sequence[Any]], cols_b: Sequence[str],
                       ignore_order: bool = True) -> bool:
    """Whether two in-memory results are the same answer under the scorer's rules.

    Both results go through the CSV round trip the scorer's inputs go through
    (``frame_from_rows``) and then through the same comparison, in both
    directions -- each one's columns must all be found in the other -- so the
    relation is symmetric, as grouping candidate answers needs.  An empty
    result is equivalent to nothing, since the scorer never accepts one.
    """
    a = frame_from_rows(rows_a, cols_a)
    b = frame_from_rows(rows_b, cols_b)
    return (compare_frames(a, b, None, ignore_order)[0]
            and compare_frames(b, a, None, ignore_order)[0])
