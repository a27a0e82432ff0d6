"""One ExitCode enum for the `smq` command: every code it defines is documented in docs/cli.md, and no
command module returns a bare number or gives exit codes values of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from smq_cli.exit_codes import ExitCode

ROOT = Path(__file__).resolve().parents[2]


def documented_codes() -> set[int]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code) for code in re.findall(r"^\| (\d+) \|", section, flags=re.M)}


def test_every_exit_code_is_documented_and_nothing_else_is():
    assert {int(code) for code in ExitCode} == documented_codes() == {0, 1, 2, 3, 4, 130}


def test_the_documented_values_are_unchanged():
    assert (ExitCode.OK, ExitCode.FAILED, ExitCode.BAD_INPUT, ExitCode.NOT_CONFIGURED, ExitCode.INTERNAL,
            ExitCode.INTERRUPTED) == (0, 1, 2, 3, 4, 130)
    assert ExitCode.INVALID_LAYER is ExitCode.FAILED and ExitCode.NO_ANSWER is ExitCode.FAILED


def test_the_scorer_command_returns_the_same_codes():
    from agent.eval import score_cli  # it may not import smq_cli (the package direction): its two codes must agree

    assert (score_cli.EXIT_OK, score_cli.EXIT_BAD_INPUT) == (ExitCode.OK, ExitCode.BAD_INPUT)


def test_no_command_returns_a_bare_number_or_defines_its_own_codes():
    offences = []
    for path in sorted((ROOT / "smq_cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and type(node.value.value) is int:
                offences.append(f"{path.name}:{node.lineno}: return {node.value.value}")
            targets = node.targets if isinstance(node, ast.Assign) else []
            names = [n.id for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(n, ast.Name)]
            if any(n.startswith("EXIT_") for n in names) and not _from_the_enum(node.value):
                offences.append(f"{path.name}:{node.lineno}: {', '.join(names)} defined with their own values")
    assert offences == []


def _from_the_enum(value: ast.expr) -> bool:
    """An old name kept as an alias (`EXIT_OK = ExitCode.OK`) is fine; a number of its own is not."""
    values = value.elts if isinstance(value, ast.Tuple) else [value]
    return all(isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "ExitCode" for v in values)
