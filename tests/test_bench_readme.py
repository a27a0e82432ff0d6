"""bench/README.md names every benchmark in bench/, and every option it shows is one the script takes."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
README = (BENCH / "README.md").read_text()
# the table rows: | `script.py` | measures | against | run |
ROWS = [line for line in README.splitlines() if re.match(r"\| `[\w/]+(\.py)?/?` \|", line)]


def test_every_benchmark_is_in_the_readme() -> None:
    named = {m.group(1) for line in README.splitlines() for m in re.finditer(r"`([\w/]+\.py|[\w]+/)`", line)}
    scripts = {p.name for p in BENCH.glob("*.py") if p.name != "__init__.py"}
    folders = {p.name + "/" for p in BENCH.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}
    assert sorted((scripts | folders) - named) == [], "bench/README.md does not name these"


def test_every_option_shown_is_taken_by_its_script() -> None:
    wrong = []
    for row in ROWS:
        script = re.match(r"\| `([\w/]+\.py)` \|", row)
        if script is None:
            continue
        run = row.rstrip(" |").rsplit("|", 1)[1]
        source = (BENCH / script.group(1)).read_text()
        wrong += [f"{script.group(1)} {flag}" for flag in re.findall(r"(--[a-z][\w-]*)", run) if f'"{flag}"' not in source]
    assert ROWS and wrong == []
