"""`run.json`: what a run did per instance, and the summary; the memory that makes a run resumable.

It is rewritten (atomically) after every instance, so an interrupted run leaves an accurate
manifest behind, and a second run into the same folder merges into it: instances it skips keep
their earlier record.

Resuming: an instance is finished, and skipped, when its CSV exists (it was answered), or when the
manifest says the agent gave up and its note exists (a real outcome, not a hiccup). Errors and
timeouts are run again: they are mostly transient (rate limits, a database away, a slow model).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .outputs import CSV, MD, atomic_write, output_path

MANIFEST = "run.json"
ANSWERED, GAVE_UP, ERROR, TIMEOUT = "answered", "gave_up", "error", "timeout"
FINAL_WITHOUT_ANSWER = frozenset({GAVE_UP})


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass
class InstanceRecord:
    """One instance's outcome in run.json."""

    instance_id: str
    db: str
    backend: str
    status: str  # answered | gave_up | error | timeout
    seconds: float = 0.0
    tokens: dict[str, int] = field(default_factory=lambda: {"input": 0, "output": 0, "thinking": 0, "total": 0})
    turns: int = 0
    attempts: int = 1
    rows: int | None = None
    truncated: bool = False
    error: str | None = None
    finished_at: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InstanceRecord:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def add_tokens(a: dict[str, int], b: dict[str, Any]) -> dict[str, int]:
    return {k: int(a.get(k, 0)) + int(b.get(k, 0) or 0) for k in ("input", "output", "thinking", "total")}


class Manifest:
    """run.json of one output folder; thread-safe, saved after every change."""

    def __init__(self, out_dir: Path, header: dict[str, Any]) -> None:
        self.path = out_dir / MANIFEST
        self.header = header
        self.records: dict[str, InstanceRecord] = {}
        self.summary: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # no manifest (a first run) or an unreadable one: start afresh, files still count
        for iid, record in (data.get("instances") or {}).items():
            if isinstance(record, dict):
                try:
                    self.records[iid] = InstanceRecord.from_dict({**record, "instance_id": iid})
                except TypeError:
                    continue

    def is_finished(self, instance_id: str) -> bool:
        """True when the instance's outputs say it is done (see the module docstring)."""
        out_dir = self.path.parent
        if output_path(out_dir, instance_id, CSV).is_file():
            return True
        record = self.records.get(instance_id)
        return (record is not None and record.status in FINAL_WITHOUT_ANSWER
                and output_path(out_dir, instance_id, MD).is_file())

    def record(self, rec: InstanceRecord) -> None:
        with self._lock:
            self.records[rec.instance_id] = rec
            self._save()

    def finish(self, summary: dict[str, Any]) -> None:
        with self._lock:
            self.summary = summary
            self._save()

    def _save(self) -> None:
        body = {**self.header, "summary": self.summary,
                "instances": {iid: {k: v for k, v in r.to_dict().items() if k != "instance_id"}
                              for iid, r in sorted(self.records.items())}}
        atomic_write(self.path, json.dumps(body, indent=2, default=str) + "\n")
