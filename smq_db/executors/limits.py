"""What one query may take of the machine, per database: `connection.limits` in database.yml.

```yaml
connection:
  backend: duckdb
  path: data/shop.duckdb
  limits:                      # all optional; the defaults below
    memory: 1GiB               # DuckDB: the data segment of the query's worker process (RLIMIT_DATA), DuckDB's
                               #   own memory_limit is half of it; SQLite: the heap of every SQLite connection
    threads: 2                 # DuckDB: threads one query may use
    temp_directory_size: 1GiB  # DuckDB: what a query may spill to disk (max_temp_directory_size)
    max_value_bytes: 64MiB     # SQLite: the longest string or blob a query may build (SQLITE_LIMIT_LENGTH)
    workers: 4                 # DuckDB (isolation: process): queries run at once, one worker process each
    isolation: process         # DuckDB's default: queries run in worker processes; `none`: in the service
```

Why a worker process for DuckDB: its `memory_limit` bounds the buffer manager, not the values a scalar function
builds. `SELECT max(length(repeat('ab', 500000000)))` took a process from 72 MB to 3.9 GB with memory_limit =
256 MB (and ran 51 s past a 5 s interrupt, which DuckDB checks between vectors, not inside one function call). In
a worker process with RLIMIT_DATA the same query fails at once with DuckDB's own "Out of Memory Error", the worker
lives on, and the service process does not grow. SQLite builds every value on its own heap, which
`sqlite3_hard_heap_limit64` bounds, and refuses a value over SQLITE_LIMIT_LENGTH, so it stays in the service
process (`isolation: process` works for it too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.dialects import dialect as dialect_of
from engine.errors import Location

from .errors import ConfigError, ExecutionError

KIB, MIB, GIB = 1024, 1024 ** 2, 1024 ** 3
ISOLATIONS = ("process", "none")
_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "tb": 1000 ** 4,
          "kib": KIB, "mib": MIB, "gib": GIB, "tib": 1024 ** 4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", re.IGNORECASE)
KEYS = ("memory", "threads", "temp_directory_size", "max_value_bytes", "workers", "isolation")


class ResourceLimitExceeded(ExecutionError):
    """A query needed more memory (or a longer value) than its database's `limits` allow; the message names the limit."""

    code = "resource_limit_exceeded"


@dataclass(frozen=True)
class ResourceLimits:
    """One database's per-query bounds (see the module doc); sizes in bytes."""

    memory: int = GIB
    threads: int = 2
    temp_directory_size: int = GIB
    max_value_bytes: int = 64 * MIB
    workers: int = 4
    isolation: str | None = None  # None: the backend's default (process for DuckDB, none for SQLite)

    def isolated(self, backend: str) -> bool:
        """Whether this engine's queries run in worker processes (engine/dialects: isolated_by_default)."""
        if self.isolation:  # set: the engine's default (its dialect module, and sqlglot) is not even looked up
            return self.isolation == "process"
        return dialect_of(backend).isolated_by_default

    def memory_message(self, what: str = "the query") -> str:
        return (f"{what} needed more memory than this database allows one query ({human(self.memory)}, "
                "connection.limits.memory in database.yml); ask for less at once: filters, fewer or smaller "
                "columns (a long string, a large list), fewer rows")


def human(size: int) -> str:
    for unit, factor in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= factor and size % (factor // 4 or 1) == 0:
            return f"{size / factor:g} {unit}"
    return f"{size:,} bytes"


def parse_size(value: Any, field: str) -> int:
    """`1GiB`, `512MB`, `2 GB` or a number of bytes; a ConfigError naming the field otherwise."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, int) and value > 0:
        return value
    match = _SIZE.match(str(value)) if isinstance(value, str) else None
    if match is None or match.group(2).lower() not in _UNITS or float(match.group(1)) <= 0:
        raise ConfigError(f"{field} must be a size such as 1GiB, 512MB or a number of bytes, got {value!r}",
                          location=Location(field=field))
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def parse_limits(raw: Any) -> ResourceLimits:
    """The `connection.limits` mapping (absent: the defaults); every mistake is a ConfigError at its field."""
    if raw is None:
        return ResourceLimits()
    base = "connection.limits"
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{base} must be a mapping ({', '.join(KEYS)})", location=Location(field=base))
    unknown = [k for k in raw if k not in KEYS]
    if unknown:
        from engine.errors import nearest

        raise ConfigError(f"{base}.{unknown[0]} is not a limit; the limits are {', '.join(KEYS)}",
                          location=Location(field=f"{base}.{unknown[0]}"), suggestions=nearest(str(unknown[0]), KEYS))
    values: dict[str, Any] = {}
    for key in ("memory", "temp_directory_size", "max_value_bytes"):
        if key in raw:
            values[key] = parse_size(raw[key], f"{base}.{key}")
    for key in ("threads", "workers"):
        if key in raw:
            number = raw[key]
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise ConfigError(f"{base}.{key} must be a whole number of at least 1, got {number!r}",
                                  location=Location(field=f"{base}.{key}"))
            values[key] = number
    if "isolation" in raw:
        if raw["isolation"] not in ISOLATIONS:
            raise ConfigError(f"{base}.isolation must be one of {', '.join(ISOLATIONS)}, got {raw['isolation']!r}",
                              location=Location(field=f"{base}.isolation"))
        values["isolation"] = raw["isolation"]
    if values.get("memory", GIB) < 64 * MIB:
        raise ConfigError(f"{base}.memory must be at least 64MiB (the engine itself needs some)",
                          location=Location(field=f"{base}.memory"))
    return ResourceLimits(**values)
