"""Spider 2.0 execution-accuracy scorer that reproduces the official evaluators.

The official Spider 2.0 evaluators (``spider2-lite`` and ``spider2-snow``
``evaluation_suite/evaluate.py``) decide correctness by comparing result tables
as pandas reads them from CSV.  Their verdicts depend on pandas' type
inference and on several quirks (sorting by string form, ``math.isclose``'s
relative tolerance, how ``condition_cols`` is unpacked), so this module keeps
the same data path -- ``pandas.read_csv`` then ``transpose().values.tolist()``
-- and re-implements the rules on top of it.  Every verdict also carries a
human-readable reason so a wrong answer can be diagnosed.

See ``docs/evaluation-scoring.md`` for the rules one per line.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

Flavor = Literal["lite", "snow"]
FLAVORS: tuple[str, ...] = ("lite", "snow")
#: exec_result: CSV files are the submission, compared as read (a header-only prediction matches a
#: header-only gold file). sql: the CSVs come from running the predicted SQL, where the official code
#: scores an empty result 0 except on SQLite (the lite flavour), which writes and compares it.
Mode = Literal["exec_result", "sql"]
MODES: tuple[str, ...] = ("exec_result", "sql")

#: Absolute tolerance for numbers (``math.isclose``'s rel_tol stays at 1e-9).
ABS_TOLERANCE = 1e-2


class ScoringError(Exception):
    """The official evaluator would raise here; the task scores 0."""


class ScorerInputError(Exception):
    """Bad scorer input (missing folder, unreadable eval line); names the file."""


@dataclass(frozen=True)
class InstanceScore:
    """Verdict for one task: ``reason`` says why it failed (or what matched)."""

    instance_id: str
    correct: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"instance_id": self.instance_id, "correct": self.correct, "reason": self.reason}


@dataclass(frozen=True)
class PrefixScore:
    """Accuracy over the tasks sharing one id prefix (``local``, ``sf_bq``...)."""

    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"accuracy": self.accuracy, "correct": self.correct, "total": self.total}


@dataclass(frozen=True)
class Report:
    """Scores for a whole submission; ``total`` counts every task in the eval file."""

    accuracy: float
    correct: int
    total: int
    instances: list[InstanceScore] = field(default_factory=list)
    per_prefix: dict[str, PrefixScore] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "accuracy": self.accuracy,
            "correct": self.correct,
            "total": self.total,
            "instances": [s.to_dict() for s in self.instances],
            "per_prefix": {p: s.to_dict() for p, s in self.per_prefix.items()},
        }


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
    frame = pd.DataFrame.from_records(list(rows), columns=list(columns), coerce_float=True)
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


def _compare(pred: pd.DataFrame, gold: pd.DataFrame, cols: list[Any] | None,
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
        return _compare(pred, gold, cols, ignore_order)
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
    return (_compare(a, b, None, ignore_order)[0]
            and _compare(b, a, None, ignore_order)[0])


# --------------------------------------------------------------------------
# condition_cols unpacking (per official evaluator flavour)
# --------------------------------------------------------------------------


def flavor_for(instance_id: str) -> Flavor:
    """Ids starting with ``sf`` were scored by the snow evaluator, the rest by lite."""
    return "snow" if instance_id.startswith("sf") else "lite"


def _entry_columns(entry: Any, flavor: Flavor) -> list[Any] | None:
    """The gold columns one condition_cols entry selects (None = all columns).

    lite tests the entry for truthiness, so a bare ``0`` (the first item of a
    flat list used for a single alternative) means every column; snow only
    treats ``[]`` as "all", so a bare ``0`` means column 0 and ``None``
    reaches ``iloc`` and raises.  A bare number is wrapped into a list.
    """
    wanted = bool(entry) if flavor == "lite" else entry != []
    if not wanted:
        return None
    return list(entry) if isinstance(entry, (list, tuple)) else [entry]


def _alternative_entries(condition_cols: Any, n_alternatives: int) -> list[Any] | None:
    """How the official multi-gold code spreads condition_cols over alternatives.

    Returns one entry per alternative position, or None when every
    alternative checks all columns.  A flat list is shared only when there
    are several alternatives; with exactly one, its first item is that
    alternative's entry.  A nested list is indexed per alternative, so a
    short list raises when the comparison reaches the missing alternative.
    """
    if condition_cols in ([], [[]], [None], None):
        return None
    try:
        if n_alternatives > 1 and not all(isinstance(c, list) for c in condition_cols):
            return [condition_cols] * n_alternatives
        return list(condition_cols)
    except TypeError as exc:  # not a list at all: the original fails the same way
        raise ScoringError(f"condition_cols {condition_cols!r} is not a list") from exc


# --------------------------------------------------------------------------
# Gold files and single tasks
# --------------------------------------------------------------------------


def find_gold_files(gold_dir: str | os.PathLike[str], instance_id: str,
                    listing: Iterable[str] | None = None) -> tuple[list[Path], bool]:
    """Gold CSVs for a task and whether the single ``<id>.csv`` was found.

    ``<id>.csv`` alone is used when present; otherwise every ``<id>_x.csv``
    (one lower-case letter) is an alternative, in name order.
    """
    gold_dir = Path(gold_dir)
    base = f"{instance_id}.csv"
    names = sorted(listing) if listing is not None else sorted(os.listdir(gold_dir))
    if base in names:
        return [gold_dir / base], True
    pattern = re.compile(rf"^{re.escape(instance_id)}_[a-z]\.csv$")
    return [gold_dir / n for n in names if pattern.match(n)], False


def _read_prediction(path: Path) -> pd.DataFrame:
    try:
        return read_result_csv(path)
    except pd.errors.EmptyDataError as exc:
        raise ScoringError("empty prediction (file has no header or rows)") from exc
    except Exception as exc:  # parser and decoding errors score 0 officially
        raise ScoringError(f"could not read prediction {path.name}: {exc}") from exc


def _read_gold(path: Path) -> pd.DataFrame:
    try:
        return read_result_csv(path)
    except Exception as exc:
        raise ScoringError(f"could not read gold {path.name}: {exc}") from exc


def _eval_options(eval_entry: dict[str, Any] | None) -> tuple[Any, bool]:
    if eval_entry is None:
        raise ScoringError("no entry for this task in the eval file")
    try:
        return eval_entry["condition_cols"], bool(eval_entry["ignore_order"])
    except (KeyError, TypeError) as exc:
        raise ScoringError(f"eval entry lacks {exc}") from exc


def _score_alternatives(pred: pd.DataFrame, golds: list[tuple[str, pd.DataFrame]],
                        condition_cols: Any, ignore_order: bool, flavor: Flavor, allow_empty: bool) -> tuple[bool, str]:
    """Try alternatives in name order; the first match wins, a raise ends with 0."""
    entries = _alternative_entries(condition_cols, len(golds))
    failures = []
    for i, (name, gold) in enumerate(golds):
        if entries is None:
            cols = None
        elif i < len(entries):
            cols = _entry_columns(entries[i], flavor)
        else:
            raise ScoringError(f"condition_cols has no entry for alternative {i} ({name}): "
                               f"{condition_cols!r}")
        ok, reason = _compare(pred, gold, cols, ignore_order, allow_empty=allow_empty)
        if ok:
            return True, f"matched {name}"
        failures.append(f"{name}: {reason}")
    if len(failures) == 1:
        return False, failures[0]
    return False, "no alternative matched -- " + "; ".join(failures)


def score_instance(instance_id: str, pred_csv: str | os.PathLike[str] | None,
                   gold_dir: str | os.PathLike[str], eval_entry: dict[str, Any] | None,
                   flavor: Flavor | None = None, *,
                   gold_listing: Iterable[str] | None = None, mode: Mode = "exec_result") -> InstanceScore:
    """Score one predicted CSV against the task's gold CSV(s).

    ``flavor`` picks the lite or snow evaluator's unpacking of
    ``condition_cols``; by default ids starting with ``sf`` follow snow.
    Anything the official evaluator would fail on -- no prediction, an
    unreadable file, a missing or out-of-range ``condition_cols`` entry --
    scores 0 with the reason.  ``gold_listing`` lets a caller list the gold
    folder once for many tasks.  ``mode`` (see Mode) decides an empty result
    against an empty gold table.
    """
    flavor = flavor or flavor_for(instance_id)
    if flavor not in FLAVORS:
        raise ValueError(f"flavor must be one of {FLAVORS}, not {flavor!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    allow_empty = mode == "exec_result" or flavor == "lite"

    def verdict(ok: bool, reason: str) -> InstanceScore:
        return InstanceScore(instance_id, ok, reason)

    if pred_csv is None or not Path(pred_csv).is_file():
        return verdict(False, "no prediction file")
    try:
        condition_cols, ignore_order = _eval_options(eval_entry)
        paths, is_single = find_gold_files(gold_dir, instance_id, gold_listing)
        if not paths:
            return verdict(False, "no gold file found")
        pred = _read_prediction(Path(pred_csv))
        if is_single:
            cols = _entry_columns(condition_cols, flavor)
            return verdict(*_compare(pred, _read_gold(paths[0]), cols, ignore_order, allow_empty=allow_empty))
        golds = [(p.name, _read_gold(p)) for p in paths]
        return verdict(*_score_alternatives(pred, golds, condition_cols, ignore_order, flavor, allow_empty))
    except ScoringError as exc:
        return verdict(False, str(exc))


# --------------------------------------------------------------------------
# Whole submissions
# --------------------------------------------------------------------------


def load_eval_file(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """Eval JSONL as ``{instance_id: entry}``; a bad line raises ScorerInputError.

    Blank lines are skipped; a repeated id keeps its last entry, as the
    official loader's dict does.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScorerInputError(f"{path}: cannot read eval file ({exc})") from exc
    entries: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScorerInputError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc
        if not isinstance(item, dict) or not isinstance(item.get("instance_id"), str):
            raise ScorerInputError(f"{path}:{number}: expected an object with a string instance_id")
        entries[item["instance_id"]] = item
    return entries


def id_prefix(instance_id: str) -> str:
    """The alphabetic prefix used to group accuracy: ``sf_bq011`` -> ``sf_bq``."""
    match = re.match(r"[A-Za-z_]*", instance_id)
    return (match.group(0).rstrip("_") if match else "") or "other"


def _require_dir(path: str | os.PathLike[str], what: str) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise ScorerInputError(f"{path}: {what} folder not found")
    return path


def _per_prefix(scores: list[InstanceScore]) -> dict[str, PrefixScore]:
    counts: dict[str, list[int]] = {}
    for s in scores:
        c = counts.setdefault(id_prefix(s.instance_id), [0, 0])
        c[0] += int(s.correct)
        c[1] += 1
    return {p: PrefixScore(c[0], c[1]) for p, c in sorted(counts.items())}


def score_submission(submission_dir: str | os.PathLike[str], gold_dir: str | os.PathLike[str],
                     eval_jsonl: str | os.PathLike[str], flavor: Flavor | None = None,
                     mode: Mode = "exec_result") -> Report:
    """Score a folder of ``<id>.csv`` predictions against every task in the eval file.

    Tasks without a prediction count as wrong, so accuracy is correct / all
    tasks.  Files other than ``<id>.csv`` for a listed id are ignored.
    Raises ScorerInputError for a missing folder or a bad eval file.
    """
    submission = _require_dir(submission_dir, "submission")
    gold = _require_dir(gold_dir, "gold")
    entries = load_eval_file(eval_jsonl)
    listing = sorted(os.listdir(gold))
    scores = [
        score_instance(iid, submission / f"{iid}.csv", gold, entries[iid], flavor,
                       gold_listing=listing, mode=mode)
        for iid in sorted(entries)
    ]
    correct = sum(s.correct for s in scores)
    total = len(scores)
    return Report(
        accuracy=correct / total if total else 0.0,
        correct=correct,
        total=total,
        instances=scores,
        per_prefix=_per_prefix(scores),
    )
