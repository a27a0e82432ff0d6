"""No engine name is compared as a string outside engine/dialects/: code asks a dialect for a trait instead.

An `if dialect == "sqlite"` (or `in ("postgres", "duckdb")`, or a dict keyed by engine names used to branch)
anywhere else is how the list of engines came to be written four times and adding one became a grep. This walks
every module of the six packages and fails on a comparison with, or a dispatch table keyed by, an engine's name.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.dialects import Engine, backend_names, dialect

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("engine", "smq_db", "smq_authoring", "agent", "service", "smq_cli")
NAMES = frozenset(backend_names()) | {e.value for e in Engine} | {"mariadb", "postgresql", "sqlite3"}


def _engine_strings(node: ast.AST) -> list[str]:
    """Engine names written as string constants in this expression (a constant, or a tuple/list/set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in NAMES:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for item in node.elts for s in _engine_strings(item)]
    return []


def offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            # `x == "sqlite"`, `x in ("postgres", "duckdb")`; not a search for a word in a text (`"mariadb" in banner`)
            sides = [node.left, *node.comparators] if all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops) \
                else node.comparators
            names = [s for side in sides for s in _engine_strings(side)]
            if names:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: compares with {', '.join(names)}")
        elif isinstance(node, ast.Dict):
            keys = [s for k in node.keys if k is not None for s in _engine_strings(k)]
            if len(keys) >= 2:  # a dispatch table by engine
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: a dict keyed by {', '.join(keys)}")
    return out


def test_no_engine_name_compared_as_a_string_outside_the_dialect_modules() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "engine" / "dialects"):
                continue
            found += offences(path)
    assert not found, "ask the dialect for a trait (engine/dialects/base.py) instead:\n" + "\n".join(found)


def test_every_engine_has_its_module_and_names_its_executor() -> None:
    for engine in Engine:
        d = dialect(engine)
        assert d.engine is engine and d.name == engine.value
        module, _, function = d.executor.partition(":")
        assert (ROOT / (module.replace(".", "/") + ".py")).exists() and function, d.executor
    assert dialect("postgresql") is dialect(Engine.POSTGRES) and dialect("mariadb") is dialect("mysql")
