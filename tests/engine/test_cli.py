"""The `smq` command line: exact outputs and exit codes that scripts rely on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from smq_cli.main import main

from ..conftest import DEMO_MODELS, ROOT
from .conftest import write_layer


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_ok(capsys) -> None:
    code, out, err = run(capsys, "validate", "--models-dir", str(DEMO_MODELS))
    assert code == 0 and out == ""
    assert "shop: ok" in err


def test_validate_prints_every_error_as_file_line_col(tmp_path: Path, capsys) -> None:
    write_layer(tmp_path, {"models/nation.yml": "name: NationModel\ntable: nations\ndimensions:\n  - {name: x, type: strng}\n  - {name: y}\n"})
    code, out, err = run(capsys, "validate", "--models-dir", str(tmp_path))
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) >= 2
    for line in lines:
        file, lineno, col, message = line.split(":", 3)
        assert file.endswith(".yml") and lineno.isdigit() and col.isdigit() and message.strip()
    assert "error(s) in 1 database(s)" in err


def test_validate_one_db_and_unknown_db(tmp_path: Path, capsys) -> None:
    write_layer(tmp_path, {})
    assert run(capsys, "validate", "--offline", "--models-dir", str(tmp_path), "--db", "mini")[0] == 0
    code, _, err = run(capsys, "validate", "--models-dir", str(tmp_path), "--db", "minni")
    assert code == 2 and "did you mean 'mini'" in err


def test_compile_json_file_and_stdin(tmp_path: Path, capsys, monkeypatch) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    code, out, _ = run(capsys, "compile", "--models-dir", str(DEMO_MODELS), "--db", "shop", json.dumps(smq))
    assert code == 0 and out.startswith("SELECT") and '"OrdersModel__status"' in out
    (tmp_path / "q.json").write_text(json.dumps(smq))
    code, out2, _ = run(capsys, "compile", "--models-dir", str(DEMO_MODELS), "--db", "shop", f"@{tmp_path / 'q.json'}")
    assert code == 0 and out2 == out
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(json.dumps(smq)))
    code, out3, _ = run(capsys, "compile", "--models-dir", str(DEMO_MODELS), "--db", "shop", "--dialect", "mysql", "-")
    assert code == 0 and "`OrdersModel__status`" in out3


@pytest.mark.parametrize(("arg", "fragment"), [
    ('{"metrics": ["OrdersModel__ordercount"]}', "did you mean 'OrdersModel__orderCount'"),
    ('{"metrics": [', "not valid JSON"),
    ("@/nonexistent/q.json", "cannot read"),
])
def test_compile_errors_go_to_stderr_with_exit_2(capsys, arg: str, fragment: str) -> None:
    code, out, err = run(capsys, "compile", "--models-dir", str(DEMO_MODELS), "--db", "shop", arg)
    assert code == 2 and out == "" and fragment in err
    assert "Traceback" not in err


def test_elements(capsys) -> None:
    code, out, _ = run(capsys, "elements", "--models-dir", str(DEMO_MODELS), "--db", "shop", "OrdersModel")
    data = json.loads(out)
    assert code == 0 and [m["name"] for m in data["models"]] == ["OrdersModel"]
    dims = {d["name"]: d for d in data["models"][0]["dimensions"]}
    assert dims["OrdersModel__orderDate"]["type"] == "date" and "expr" not in dims["OrdersModel__orderDate"]
    code, _, err = run(capsys, "elements", "--models-dir", str(DEMO_MODELS), "--db", "shop", "OrderModel")
    assert code == 2 and "did you mean 'OrdersModel'" in err


def test_models_dir_defaults_to_env_then_cwd(tmp_path: Path, capsys, monkeypatch) -> None:
    write_layer(tmp_path / "layers", {})
    monkeypatch.setenv("SMQ_MODELS_DIR", str(tmp_path / "layers"))
    assert run(capsys, "validate", "--offline")[0] == 0
    monkeypatch.delenv("SMQ_MODELS_DIR")
    monkeypatch.chdir(ROOT)
    code, _, err = run(capsys, "validate")
    assert code == 0 and "shop: ok" in err


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("smq")
    proc = subprocess.run([str(exe), "compile", "--db", "shop", '{"metrics": ["OrdersModel__orderCount"]}'],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "SMQ_MODELS_DIR": str(DEMO_MODELS)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("SELECT")
