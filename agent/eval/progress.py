"""A progress bar on stderr, without a dependency.

On a terminal one line is redrawn in place (`\\r`); into a file or a CI log each finished instance
prints its own line, which is what a log reader wants anyway.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Protocol, TextIO

from .manifest import ANSWERED, InstanceRecord

BAR_WIDTH = 24


class Progress(Protocol):
    def start(self, total: int, skipped: int) -> None: ...
    def update(self, record: InstanceRecord) -> None: ...
    def close(self) -> None: ...


class NoProgress:
    """For library use and tests: silent."""

    def start(self, total: int, skipped: int) -> None:
        pass

    def update(self, record: InstanceRecord) -> None:
        pass

    def close(self) -> None:
        pass


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def _tokens(n: int) -> str:
    return f"{n / 1_000_000:.1f}M" if n >= 1_000_000 else f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class ProgressBar:
    """`[#####-----] 12/50  ok 10  failed 2  1.2M tok  03:41  local054 answered`"""

    def __init__(self, stream: TextIO | None = None, clock=time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.total = self.done = self.ok = self.failed = self.tokens = 0
        self.started = clock()
        self._lock = threading.Lock()

    def start(self, total: int, skipped: int) -> None:
        self.total, self.started = total, self.clock()
        note = f" ({skipped} already finished, skipped)" if skipped else ""
        self.stream.write(f"running {total} instance(s){note}\n")
        self.stream.flush()

    def update(self, record: InstanceRecord) -> None:
        with self._lock:
            self.done += 1
            self.ok += record.status == ANSWERED
            self.failed += record.status != ANSWERED
            self.tokens += int(record.tokens.get("total", 0))
            filled = BAR_WIDTH * self.done // max(self.total, 1)
            line = (f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {self.done}/{self.total}  ok {self.ok}  "
                    f"failed {self.failed}  {_tokens(self.tokens)} tok  {_clock(self.clock() - self.started)}  "
                    f"{record.instance_id} {record.status}")
            if self.tty:
                self.stream.write("\r\x1b[2K" + line)
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()
