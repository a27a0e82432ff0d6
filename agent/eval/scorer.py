"""Spider 2.0 execution-accuracy scorer that reproduces the official evaluators.

The official Spider 2.0 evaluators (``spider2-lite`` and ``spider2-snow``
``evaluation_suite/evaluate.py``) decide correctness by comparing result tables
as pandas reads them from CSV.  Their verdicts depend on pandas' type
inference and on several quirks (sorting by string form, ``math.isclose``'s
relative tolerance, how ``condition_cols`` is unpacked), so this module keeps
the same data path -- ``pandas.read_csv`` then ``transpose().values.tolist()``
-- and re-implements the rules on top of it: the table comparison in ``compare.py``,
the files, eval entries and gold alternatives here.  Every verdict also carries
a human-readable reason so a wrong answer can be diagnosed.

See ``docs/evaluation-scoring.md`` for the rules one per line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from .compare import (  # noqa: F401 - the comparison's public names stay importable from the scorer
    ABS_TOLERANCE,
    ScoringError,
    compare_frames,
    compare_tables,
    frame_from_rows,
    read_result_csv,
    results_equivalent,
)

Flavor = Literal["lite", "snow"]
FLAVORS: tuple[str, ...] = ("lite", "snow")
#: exec_result: CSV files are the submission, compared as read (a header-only prediction matches a
#: header-only gold file). sql: the CSVs come from running the predicted SQL, where the official code
#: scores an empty result 0 except on SQLite (the lite flavour), which writes and compares it.
Mode = Literal["exec_result", "sql"]
MODES: tuple[str, ...] = ("exec_result", "sql")


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
        ok, reason = compare_frames(pred, gold, cols, ignore_order, allow_empty=allow_empty)
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
            return verdict(*compare_frames(pred, _read_gold(paths[0]), cols, ignore_order, allow_empty=allow_empty))
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
