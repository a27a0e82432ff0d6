"""The compiled-SQL cache of `smq compile` / `smq query` (smq_cli/sqlcache.py), in fresh `smq` processes: a hit
prints the same and imports neither sqlglot nor the engine's compiler; any change of what the SQL comes from (a
layer file, the role, the SMQ, the engine's source) misses; an entry that is not sound is ignored and rewritten."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smq_cli import sqlcache

ROOT = Path(__file__).resolve().parents[2]
ONE_MODEL = '{"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}'
# the `smq` process itself (main() without argv); sys.modules is read as it leaves (os._exit)
ONE_SHOT = """
import json, os, sys
out, sys.argv = sys.argv[1], ["smq", *sys.argv[2:]]
leave = os._exit
def dump_and_leave(code):
    import resource
    with open(out, "w") as f:
        json.dump({"code": code, "modules": sorted(sys.modules),
                   "limit": resource.getrlimit(resource.RLIMIT_DATA)[0]}, f)
    leave(code)
os._exit = dump_and_leave
from smq_cli.main import main
main()
"""
COMPILER = ("sqlglot", "engine.facade", "engine.layer.load", "yaml")


def smq(tmp_path: Path, *argv: str, env: dict[str, str] | None = None, code_root: Path = ROOT) -> dict:
    out = tmp_path / "report.json"
    out.unlink(missing_ok=True)
    environ = {k: v for k, v in os.environ.items() if k != "SMQ_NO_CACHE"}
    environ.update({"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(code_root), **(env or {})})
    done = subprocess.run([sys.executable, "-c", ONE_SHOT, str(out), *argv], capture_output=True, text=True,
                          timeout=120, cwd=code_root, env=environ)  # `-c` imports from its folder first
    assert out.exists(), done.stderr
    report = json.loads(out.read_text())
    report["out"], report["err"] = done.stdout, done.stderr
    report["hit"] = not any(m in report["modules"] for m in COMPILER)
    return report


def entries(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "cache" / "smq" / "compiled"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """A copy of the demo layer's YAML (compiling reads no database)."""
    target = tmp_path / "models" / "shop"
    shutil.copytree(ROOT / "semantic_models" / "shop", target, ignore=shutil.ignore_patterns("data"))
    return tmp_path / "models"


def test_a_repeat_compile_is_read_from_the_cache_without_the_compiler(tmp_path: Path, models: Path) -> None:
    argv = ("compile", "--models-dir", str(models), "--db", "shop", ONE_MODEL)
    cold = smq(tmp_path, *argv)
    assert cold["code"] == 0 and cold["out"].startswith("SELECT") and not cold["hit"]
    [entry] = entries(tmp_path)
    assert entry.stat().st_mode & 0o777 == 0o600 and entry.parent.stat().st_mode & 0o777 == 0o700
    warm = smq(tmp_path, *argv)
    assert warm["code"] == 0 and warm["out"] == cold["out"] and warm["hit"], sorted(set(warm["modules"]) & set(COMPILER))
    assert not [m for m in warm["modules"] if m.split(".")[0] in ("sqlglot", "networkx", "duckdb", "smq_db")]


def test_a_change_of_a_layer_file_the_role_or_the_smq_misses(tmp_path: Path, models: Path) -> None:
    argv = ("compile", "--models-dir", str(models), "--db", "shop")
    first = smq(tmp_path, *argv, ONE_MODEL)
    assert smq(tmp_path, *argv, ONE_MODEL)["hit"]
    orders = models / "shop" / "models" / "orders.yml"
    orders.write_text(orders.read_text().replace("TRIM(status)", "LOWER(TRIM(status))"))
    changed = smq(tmp_path, *argv, ONE_MODEL)
    assert not changed["hit"] and "LOWER(TRIM(" in changed["out"] and changed["out"] != first["out"]
    assert smq(tmp_path, *argv, ONE_MODEL)["hit"]
    (models / "shop" / "models" / "extra.yml").write_text("# a new file of the layer, empty\n")
    assert not smq(tmp_path, *argv, ONE_MODEL)["hit"]  # a file added changes what the loader reads
    role = smq(tmp_path, *argv, "--role", "corporate_analyst", ONE_MODEL)
    assert not role["hit"] and "corporate" in role["out"]  # a role's row filters are in its SQL
    assert smq(tmp_path, *argv, "--role", "corporate_analyst", ONE_MODEL)["out"] == role["out"]
    other = smq(tmp_path, *argv, '{"metrics": ["OrdersModel__orderCount"]}')
    assert not other["hit"] and other["out"] != changed["out"]
    assert not smq(tmp_path, *argv, "--dialect", "postgres", ONE_MODEL)["hit"]
    assert not smq(tmp_path, *argv, "--no-rollups", ONE_MODEL)["hit"]


def test_an_edit_of_the_engine_source_misses(tmp_path: Path, models: Path) -> None:
    code = tmp_path / "code"
    for package in sqlcache.PACKAGES:
        shutil.copytree(ROOT / package, code / package, ignore=shutil.ignore_patterns("__pycache__"))
    argv = ("compile", "--models-dir", str(models), "--db", "shop", ONE_MODEL)
    assert not smq(tmp_path, *argv, code_root=code)["hit"]
    assert smq(tmp_path, *argv, code_root=code)["hit"]
    render = code / "engine" / "render" / "render.py"
    render.write_text(render.read_text() + "\n# an edit\n")
    assert not smq(tmp_path, *argv, code_root=code)["hit"]
    assert len(entries(tmp_path)) == 2


@pytest.mark.parametrize("tamper", ["{not json", '{"format": 1, "key": "x", "kind": "sql", "text": "DROP TABLE orders"}',
                                    "[]", ""])
def test_an_entry_that_is_not_sound_is_ignored_and_written_again(tmp_path: Path, models: Path, tamper: str) -> None:
    argv = ("compile", "--models-dir", str(models), "--db", "shop", ONE_MODEL)
    cold = smq(tmp_path, *argv)
    [entry] = entries(tmp_path)
    entry.write_text(tamper)
    again = smq(tmp_path, *argv)
    assert not again["hit"] and again["out"] == cold["out"]
    assert json.loads(entry.read_text())["text"] == cold["out"].rstrip("\n")
    entry.chmod(0o644)  # readable by others: not this user's private entry any more
    assert not smq(tmp_path, *argv)["hit"]


def test_no_cache_and_the_environment_switch_it_off(tmp_path: Path, models: Path) -> None:
    argv = ("compile", "--models-dir", str(models), "--db", "shop")
    assert not smq(tmp_path, *argv, "--no-cache", ONE_MODEL)["hit"]
    assert not smq(tmp_path, *argv, ONE_MODEL, env={"SMQ_NO_CACHE": "1"})["hit"]
    assert entries(tmp_path) == []


def test_a_repeat_query_runs_the_cached_sql_under_the_memory_bound(tmp_path: Path) -> None:
    argv = ("query", "--db", "shop", ONE_MODEL)
    cold = smq(tmp_path, *argv)
    assert cold["code"] == 0 and "(6 rows)" in cold["out"] and not cold["hit"]
    warm = smq(tmp_path, *argv)
    assert warm["code"] == 0 and warm["out"] == cold["out"] and warm["hit"]
    assert "duckdb" in warm["modules"] and "smq_db.readonly" not in warm["modules"]  # run as checked when written
    assert warm["limit"] == cold["limit"] == 1024 ** 3  # the demo's 1 GiB bound, on this process as before
    explain = smq(tmp_path, "query", "--explain", "--db", "shop", ONE_MODEL)
    compiled = smq(tmp_path, "compile", "--db", "shop", ONE_MODEL)
    assert explain["out"] == compiled["out"] and compiled["hit"]  # one entry for the same text
    assert smq(tmp_path, "query", "--db", "shop", "--format", "json", ONE_MODEL)["hit"]


def test_a_query_entry_naming_another_executor_is_not_run(tmp_path: Path) -> None:
    argv = ("query", "--db", "shop", ONE_MODEL)
    cold = smq(tmp_path, *argv)
    for entry in entries(tmp_path):
        body = json.loads(entry.read_text())
        if body["kind"] == "query":
            body["database"]["executor"] = "os:system"
            entry.write_text(json.dumps(body))
    again = smq(tmp_path, *argv)
    assert again["out"] == cold["out"] and not again["hit"]


def test_models_root_is_the_engines_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine

    for value in (None, "", "elsewhere/models"):
        if value is None:
            monkeypatch.delenv("SMQ_MODELS_DIR", raising=False)
        else:
            monkeypatch.setenv("SMQ_MODELS_DIR", value)
        assert sqlcache.models_root(None) == engine.default_models_dir()
    assert sqlcache.models_root(Path("x")) == Path("x")
