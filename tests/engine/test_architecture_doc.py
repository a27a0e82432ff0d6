"""docs/architecture.md matches the code: every module of engine/ is named there (a new module without a line in
its table fails here), and every module the document names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _named(path: Path) -> bool:
    relative = path.relative_to(ROOT / "engine").as_posix()
    folder, _, name = relative.rpartition("/")
    return (f"`{relative}`" in DOC or f"engine/{relative}" in DOC
            or (folder and f"`{name}`" in DOC and f"`{folder}/" in DOC and name != "__init__.py"))


def test_every_engine_module_is_in_the_architecture_doc() -> None:
    missing = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "engine").rglob("*.py"))
               if not (p.name == "__init__.py" and p.parent.name in ("layer", "resolve", "plan", "render", "rollups")) and not _named(p)]
    assert not missing, f"modules of engine/ that docs/architecture.md does not name: {missing}"


def test_every_engine_module_the_doc_names_exists() -> None:
    named = set(re.findall(r"`engine/([\w/]+\.py)`", DOC)) | set(re.findall(r"\| `((?:layer|resolve|plan|render|dialects|access|rollups)/\w+\.py)`", DOC))
    gone = sorted(n for n in named if not (ROOT / "engine" / n).exists() and "<engine>" not in n)
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"
