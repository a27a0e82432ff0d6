"""The playground offers every dialect the engine compiles for: its list is written in the page's source, so a test
holds it to engine/dialects (it offered 7 of 10 once)."""

from __future__ import annotations

import re
from pathlib import Path

from engine.dialects import SUPPORTED_DIALECTS

APP = Path(__file__).resolve().parents[2] / "playground" / "src" / "App.jsx"


def test_the_playground_offers_every_dialect() -> None:
    found = re.search(r"const DIALECTS = \[([^\]]*)\]", APP.read_text(encoding="utf-8"))
    assert found, "App.jsx no longer declares DIALECTS"
    offered = re.findall(r"'([a-z]+)'", found.group(1))
    assert sorted(offered) == sorted(SUPPORTED_DIALECTS)
    assert offered[0] == "duckdb"  # the demo's engine first: the default choice
