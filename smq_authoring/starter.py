"""The starter tests `smq init` writes to `tests/generated.yml`: the assumptions the layer makes.

Keys are non-NULL and unique, joins do not multiply rows (the relationship is what it says), and
references find their target. Each test is run on the database first: the file holds only tests
that pass there; one that fails is written commented out with what it found, because a layer is
not wrong for describing dirty data, but its reviewer should know.
"""

from __future__ import annotations

import math
import re
from typing import Any

from engine import Layer
from engine.errors import Location

from .layerdoc import dump
from .modeltests import Runner, TestCase, run_case

HEADER = """# Starter tests written by `smq init`: run them with `smq test --db {db}`.
# Each one passed on the database when it was written; a commented-out test failed there (see why).
# Add your own below: {{name, smq, expect: {{rows: [...]}}}}, or assertions such as
# no_null_keys, unique_key, join_keeps_all_rows, no_orphans, metric_non_negative, row_count.
# Edit freely: a re-run of `smq init` keeps this file once you have changed it.
"""


def starter_entries(layer: Layer) -> list[dict[str, Any]]:
    """Assertions for every key and every join of the layer, before running them."""
    out: list[dict[str, Any]] = []
    for model in layer.models.values():
        if model.primary_key:
            out.append({"name": f"{model.name}: no NULL in the primary key", "no_null_keys": model.name})
            out.append({"name": f"{model.name}: the primary key is unique", "unique_key": model.name})
    for edge in layer.semantic.joins:
        ref = f"{edge.from_model}.{edge.key}"
        out.append({"name": f"{ref}: the join keeps every {edge.from_model} row once", "join_keeps_all_rows": ref})
        out.append({"name": f"{ref}: every {edge.left} finds its {edge.to_model} row", "no_orphans": ref})
    return out


def starter_tests(layer: Layer, run: Runner, db_name: str) -> tuple[str, int, list[str]]:
    """The tests file text, how many tests passed, and the failures (commented out in the file)."""
    lines = [HEADER.format(db=db_name), "tests:\n"]
    passed, failed = 0, []
    for entry in starter_entries(layer):
        case = TestCase(entry["name"], next(k for k in entry if k != "name"), dict(entry), Location())
        outcome = run_case(layer, case, run)
        if not outcome.passed and case.kind == "no_orphans" and not outcome.error:
            share = _orphan_share(outcome.message)
            if share is not None and share <= 0.2:
                entry["max_share"] = math.ceil(share * 100 + 1e-9) / 100
                outcome = run_case(layer, TestCase(entry["name"], case.kind, dict(entry), Location()), run)
                if outcome.passed:
                    lines.append(f"  # {share:.1%} of the rows had no match when scaffolded\n")
        block = _entry_text(entry)
        if outcome.passed:
            passed += 1
            lines.append(block)
        else:
            reason = outcome.message.splitlines()[0] if outcome.message else "failed"
            failed.append(f"{entry['name']}: {reason}")
            lines.append(f"  # failed when scaffolded: {reason}\n" + "".join(f"  # {line[2:]}\n" for line in block.splitlines()))
    if passed == 0 and not failed:
        lines[-1] = "tests: []\n"
    return "".join(lines), passed, failed


def _entry_text(entry: dict[str, Any]) -> str:
    return "".join("  " + line + "\n" for line in dump([entry]).splitlines())


def _orphan_share(message: str) -> float | None:
    m = re.search(r"\(([\d.]+)%, allowed", message)
    return float(m.group(1)) / 100 if m else None
