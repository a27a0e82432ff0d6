"""Every error code raised anywhere is registered (engine/error_codes.py) and documented (docs/errors.md).

The codes are read from the source with `ast`, not from a list kept by hand: `code="..."` keywords, class
attributes `code = "..."`, `{"code": "..."}` literals, and the positional code of the helpers that take one.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from engine.error_codes import CODES, HTTP_STATUS, Kind, lookup
from engine.errors import LayerError, LayerValidationError, Location, QueryError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "smq_db", "agent", "service", "smq_authoring", "smq_cli")
# functions whose positional parameter `code` is an error code: name -> index of that argument in a call
ERROR_CODE_HELPERS = {"_err": 2, "problem": 1, "_fail": 2}
# functions with a positional `code` that raise nothing: Python source for the sandbox, the registry's own look-ups
NOT_ERROR_CODES = {"run_python", "_run", "python", "_register", "lookup", "status_of", "_leave"}  # _leave: an exit code


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]


def _text(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _callee(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(call.func, ast.Attribute) else None


def raised_codes(sources: list[tuple[Path, ast.Module]]) -> dict[str, set[str]]:
    """code -> the places (file:line) that raise or return it."""
    found: dict[str, set[str]] = defaultdict(set)

    def note(code: str | None, path: Path, node: ast.AST) -> None:
        if code is not None:
            found[code].add(f"{path.relative_to(ROOT)}:{node.lineno}")  # type: ignore[attr-defined]

    for path, tree in sources:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "code":
                note(_text(node.value), path, node.value)
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
                    if any(isinstance(t, ast.Name) and t.id == "code" for t in targets):
                        note(_text(stmt.value), path, stmt)  # type: ignore[union-attr]
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if _text(key) == "code":
                        note(_text(value), path, value)
            elif isinstance(node, ast.Call) and _callee(node) in ERROR_CODE_HELPERS:
                index = ERROR_CODE_HELPERS[_callee(node)]  # type: ignore[index]
                if len(node.args) > index:
                    note(_text(node.args[index]), path, node.args[index])
    return found


def documented_codes() -> set[str]:
    return set(re.findall(r"`([a-z][a-z0-9_]*)`", (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def sources() -> list[tuple[Path, ast.Module]]:
    return _sources()


def test_the_scan_finds_the_codes_it_should(sources) -> None:
    """The scanner itself: each way of raising a code is seen (else the next test proves nothing)."""
    found = raised_codes(sources)
    for code in ("unknown_element", "invalid_layer", "not_read_only", "unknown_tool", "empty_query", "run_not_found",
                 "tool_error", "database_required"):
        assert code in found, code
    assert len(found) > 70


def test_every_function_taking_a_positional_code_is_known(sources) -> None:
    """A new helper with a positional `code` parameter must be taught to the scan (or codes would hide behind it)."""
    unknown = []
    for path, tree in sources:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                positional = [a.arg for a in node.args.posonlyargs + node.args.args]
                if "code" in positional and node.name not in ERROR_CODE_HELPERS and node.name not in NOT_ERROR_CODES:
                    unknown.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not unknown, f"add these to ERROR_CODE_HELPERS or NOT_ERROR_CODES: {unknown}"


def test_every_raised_code_is_registered(sources) -> None:
    missing = {code: sorted(places)[:2] for code, places in raised_codes(sources).items() if code not in CODES}
    assert not missing, f"register these in engine/error_codes.py (one _register line each): {missing}"


def test_every_registered_code_is_documented() -> None:
    missing = sorted(set(CODES) - documented_codes())
    assert not missing, f"document these in docs/errors.md: {missing}"


def test_every_kind_has_a_status_and_the_statuses_rest_relies_on() -> None:
    assert set(HTTP_STATUS) == set(Kind)
    expected = {"unauthorized": 401, "raw_sql_refused": 403, "catalog_refused": 403, "tool_disabled": 403,
                "unknown_database": 404, "unknown_tool": 404, "method_not_allowed": 405, "invalid_request": 422,
                "internal_error": 500, "backend_unavailable": 503, "database_invalid": 503, "query_timeout": 504,
                "unknown_element": 400, "execution_failed": 400}
    assert {code: CODES[code].status for code in expected} == expected
    assert lookup("internal_oops").status == 500 and lookup("never_registered").status == 400


def test_one_error_shape_for_rest_and_tools() -> None:
    err = QueryError("unknown element 'x'", code="unknown_element", location=Location(field="metrics[0]"),
                     suggestions=["OrdersModel__orderCount"])
    problem = err.problem()
    assert problem == {"type": "https://smq.dev/errors/unknown_element", "title": "Unknown element", "status": 400,
                       "detail": err.formatted(), "code": "unknown_element",
                       "errors": [{"code": "unknown_element", "message": "unknown element 'x'",
                                   "location": {"field": "metrics[0]"}, "suggestions": ["OrdersModel__orderCount"]}]}
    tool = err.tool_error()
    assert tool == {"error": err.formatted(), "code": "unknown_element", "type": problem["type"],
                    "title": problem["title"], "status": 400, "location": {"field": "metrics[0]"},
                    "suggestions": ["OrdersModel__orderCount"]}
    layer = LayerValidationError("shop", [LayerError("bad", code="invalid_type", location=Location("a.yml", 2, 3))])
    assert layer.problem()["status"] == 503 and layer.problem()["detail"] == layer.message
    assert [e["code"] for e in layer.problem()["errors"]] == ["invalid_type"]
