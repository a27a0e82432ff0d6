"""Is a layer's demo database file there and built by this code? Answered without importing the builder.

`ensure_demo` (build.py) builds the file when it is missing or stale; asking whether it must costs reading a
stamp beside the file and hashing the two source files that make it, so `smq query` on a built demo loads
neither the generator nor the writers (nor sqlite3, nor their SQL).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.dialects import Engine  # the enum alone: no dialect module, no sqlglot
from engine.digests import sha256  # not hashlib's OpenSSL: the same digest, cheaper to import

DEMOS = ("shop",)
FILE_BACKENDS = (Engine.DUCKDB.value, Engine.SQLITE.value)  # the demo files the loader builds


def fingerprint() -> str:
    """A short hash of the code that makes the demo files: a file built by other code is rebuilt."""
    h = sha256()
    here = Path(__file__).parent
    for name in ("generate.py", "build.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def stamp_of(path: Path) -> Path:
    return path.with_name(path.name + ".demo-version")


def demo_file(database_dir: Path, connection: Mapping[str, Any]) -> Path | None:
    """The file a connection's demo is written to (None: no demo, or a server backend); `${VAR}` and `~`
    expanded, relative to the layer's folder. Raises ValueError for an unknown demo or a missing path."""
    demo = connection.get("demo")
    if not demo:
        return None
    if demo not in DEMOS:
        raise ValueError(f"{database_dir / 'database.yml'}: unknown demo {demo!r}; known: {', '.join(DEMOS)}")
    if str(connection.get("backend", "")).lower() not in FILE_BACKENDS:
        return None  # a server backend: the demo is loaded into it with load_into, not here
    if not connection.get("path"):
        raise ValueError(f"{database_dir / 'database.yml'}: connection.path is required for the demo database")
    path = Path(os.path.expanduser(os.path.expandvars(str(connection["path"]))))
    return path if path.is_absolute() else database_dir / path


def is_current(path: Path) -> bool:
    """The file exists and its stamp names this code's fingerprint."""
    stamp = stamp_of(path)
    return path.exists() and stamp.exists() and stamp.read_text(encoding="utf-8").strip() == fingerprint()
