"""A fixed split of benchmark databases into a tuning half and a held-out half.

The half is decided by the database's name alone (the first byte of its SHA-256), so it is the same
on every machine and run, and does not move when databases are added or removed. Tune knobs on
`tune`; report on `held_out`, which nothing was chosen on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

HALVES = ("tune", "held_out", "all")


def half_of(database: str) -> str:
    """'tune' or 'held_out' for a database name."""
    return "tune" if hashlib.sha256(database.encode("utf-8")).digest()[0] % 2 == 0 else "held_out"


def select(databases: Iterable[str], half: str) -> list[str]:
    """The databases of one half ('all': every one), in sorted order."""
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES}, not {half!r}")
    return sorted(db for db in databases if half == "all" or half_of(db) == half)
