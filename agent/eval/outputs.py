"""What a run leaves per instance: `<id>.sql`, `<id>.csv`, `<id>.md` (and `<id>.trace.json`).

The CSV is what Spider 2.0 scores, so it is written the way the official scripts write theirs
(`pandas.DataFrame.to_csv(index=False)`): a header row, NULL as an empty cell, numbers in Python's
shortest round-trip form, booleans as True/False. `pandas.read_csv` (the scorer's only reader) then
reads back the values the database returned. Nested values (BigQuery records, arrays) are written
as JSON, as their text is all a comparison could use.

Every file is written to a temporary name and renamed, and the CSV goes last: a CSV on disk means
the instance finished, which is what resuming relies on.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..trace import table_md

CSV, SQL, MD, TRACE = ".csv", ".sql", ".md", ".trace.json"
SUFFIXES = (CSV, SQL, MD, TRACE)
NOTE_ROWS = 20  # result rows shown in an oracle or error note


def output_path(out_dir: Path, instance_id: str, suffix: str) -> Path:
    return out_dir / f"{instance_id}{suffix}"


def atomic_write(path: Path, text: str) -> None:
    """Write `text` so that readers see the old file or the whole new one, never half of it."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8", newline="")
    os.replace(tmp, path)


def clear_outputs(out_dir: Path, instance_id: str) -> None:
    """Remove an instance's files before it runs again, so no stale CSV outlives a new attempt."""
    for suffix in SUFFIXES:
        output_path(out_dir, instance_id, suffix).unlink(missing_ok=True)


def csv_cell(value: Any) -> str:
    """One value as the CSV text pandas reads back as that value (None -> empty, i.e. missing)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float, str)):
        return str(value)  # float str() is the shortest repr that round-trips
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def result_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A result table as Spider 2.0 CSV text: header row, then one line per row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([str(c) for c in columns])
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return buffer.getvalue()


def write_answer(out_dir: Path, instance_id: str, sql: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                 note_md: str, trace_json: dict[str, Any] | None = None) -> None:
    """All files of an answered instance; the CSV last (it marks the instance as done)."""
    atomic_write(output_path(out_dir, instance_id, SQL), sql.rstrip() + "\n")
    write_note(out_dir, instance_id, note_md, trace_json)
    atomic_write(output_path(out_dir, instance_id, CSV), result_csv(columns, rows))


def write_note(out_dir: Path, instance_id: str, note_md: str, trace_json: dict[str, Any] | None = None) -> None:
    """The human-readable account (`<id>.md`) and, for agent runs, the full trace as JSON."""
    atomic_write(output_path(out_dir, instance_id, MD), note_md)
    if trace_json is not None:
        atomic_write(output_path(out_dir, instance_id, TRACE), json.dumps(trace_json, indent=2, default=str) + "\n")


def _fence(text: str, lang: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def oracle_note(instance_id: str, db: str, backend: str, question: str, sql: str, columns: Sequence[str] | None,
                rows: Sequence[Sequence[Any]] | None, error: str | None) -> str:
    """`<id>.md` of an oracle run: which SQL ran where, and what came back (or why it failed)."""
    lines = [f"# {instance_id} (oracle SQL)", "", f"- database: `{db}` ({backend})", f"- question: {' '.join(question.split())}",
             "", _fence(sql, "sql"), ""]
    if error is not None:
        lines.append(f"**error**: {error}")
    else:
        lines += [f"{len(rows or [])} row(s)", "", table_md(list(columns or []), [list(r) for r in rows or []], NOTE_ROWS)]
    return "\n".join(lines) + "\n"


def failure_note(instance_id: str, db: str, backend: str, question: str, status: str, error: str) -> str:
    """`<id>.md` when no trace exists (no layer, no database file, a timeout): what went wrong."""
    return "\n".join([f"# {instance_id}: {status}", "", f"- database: `{db}` ({backend})",
                      f"- question: {' '.join(question.split())}", "", f"**{status}**: {error}", ""])
