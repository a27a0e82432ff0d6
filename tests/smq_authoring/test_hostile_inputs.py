"""What `smq init` and `smq import dbt` do with hostile catalogs and files: a clear message, never a traceback, and
YAML that holds names only as data. Before the change a table named `../../x` stopped `smq init` with an internal
error (exit 4), a table name holding a newline reached the model file's header comment as text (the line after
it became YAML), and a 50,000-deep `semantic_manifest.json` printed a RecursionError traceback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine import load_layer
from smq_authoring import init_layer
from smq_authoring.dbt.source import MAX_MANIFEST_DEPTH, json_depth
from smq_authoring.init import unusable_name
from smq_authoring.layerdoc import _comments
from smq_cli.exit_codes import ExitCode
from tests.conftest import ROOT

INJECTED = "evil\nname: injected"  # a line of YAML after the newline
HOSTILE_TABLES = ["../../x", INJECTED, "tab\tname", "..", "line\u2028sep"]


def _smq(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "smq_cli.main", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.db"
    conn = sqlite3.connect(path)
    for name in [*HOSTILE_TABLES, "orders"]:
        quoted = '"' + name.replace('"', '""') + '"'
        conn.execute(f"CREATE TABLE {quoted} (id INTEGER PRIMARY KEY, \"note\nx: 1\" TEXT)")
        conn.execute(f"INSERT INTO {quoted} VALUES (1, 'a')")
    conn.commit()
    conn.close()
    return path


def test_init_skips_names_no_model_can_hold_with_a_message(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "layer"
    run = _smq("init", "--from", f"sqlite:///{hostile_db}", "--db", "hostile", "--out", str(out), cwd=tmp_path)
    assert run.returncode == ExitCode.OK, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert "skipped table '../../x': its name holds a path separator" in run.stdout
    assert "skipped table 'evil\\nname: injected': its name holds a control character or a line break" in run.stdout
    assert sorted(p.name for p in (out / "models").iterdir()) == ["orders.yml"]
    assert not (tmp_path / "x.yml").exists() and not list(tmp_path.parent.glob("x*.yml"))
    layer = load_layer(out)
    assert list(layer.semantic.models) == ["OrdersModel"]


def test_a_column_name_with_a_newline_is_data_in_the_yaml(hostile_db: Path, tmp_path: Path) -> None:
    result = init_layer(f"sqlite:///{hostile_db}", "hostile", tmp_path / "layer", write_tests=False)
    assert len(result.skipped_tables) == len(HOSTILE_TABLES) and "'..'" in " ".join(result.skipped_tables)
    text = (tmp_path / "layer" / "models" / "orders.yml").read_text(encoding="utf-8")
    body = yaml.safe_load(text)
    assert "x" not in body and set(body) <= {"name", "description", "table", "primary_key", "dimensions", "measures"}
    assert any(d.get("expr") == '"note\nx: 1"' for d in body["dimensions"])  # the name, quoted as data


def test_comment_lines_never_let_a_line_break_through() -> None:
    text = _comments([f"Drafted from the table {INJECTED}", "a\r\nb\u2028c\x85d"])
    assert yaml.safe_load(text + "k: 1\n") == {"k": 1}
    assert all(line.startswith("# ") or line == "#" for line in text.splitlines())


@pytest.mark.parametrize(("name", "usable"), [("orders", True), ("Order Items", True), ("dbo.x", True),
                                              ("../../x", False), ("a\nb", False), ("a\\b", False), ("--", False),
                                              ("a\x00b", False), ("zero\u200bwidth", False)])
def test_unusable_names(name: str, usable: bool) -> None:
    assert (unusable_name(name) is None) is usable


def test_a_deep_manifest_is_a_clear_error_naming_the_limit(tmp_path: Path) -> None:
    manifest = tmp_path / "semantic_manifest.json"
    depth = 50_000
    manifest.write_text('{"semantic_models": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    run = _smq("import", "dbt", "--from", str(manifest), "--db", "deep", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == ExitCode.BAD_INPUT, (run.returncode, run.stderr[-500:])
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    assert f"50,001 levels deep, more than the limit of {MAX_MANIFEST_DEPTH} (MAX_MANIFEST_DEPTH)" in run.stderr
    assert not (tmp_path / "out").exists()


def test_deep_yaml_is_a_clear_error_too(tmp_path: Path) -> None:
    source = tmp_path / "models.yml"
    source.write_text("semantic_models: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    run = _smq("import", "dbt", "--from", str(source), "--db", "deep", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode != ExitCode.OK and "Traceback" not in run.stderr
    assert "nesting depth" in run.stderr


def test_json_depth_ignores_brackets_inside_strings() -> None:
    assert json_depth('{"a": "[[[{\\"", "b": [[1]]}') == 3
    assert json_depth("") == 0
