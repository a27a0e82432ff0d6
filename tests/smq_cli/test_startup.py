"""`smq --version`, and commands that do not evaluate start without the agent, pandas or FastAPI.

A behavioural check (which modules get imported), not a timing: bench/cli_startup.py measures the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from smq_cli.main import main

HEAVY = ("pandas", "numpy", "pyarrow", "fastapi", "agent", "uvicorn", "httpx")


def imported_modules(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "smq_cli.main", *argv],
                          capture_output=True, text=True, timeout=120)
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize("argv", [("compile", "--help"), ("validate", "--help"), ("query", "--help"), ("--version",)])
def test_commands_that_do_not_evaluate_import_nothing_heavy(argv: tuple[str, ...]) -> None:
    modules = imported_modules(*argv)
    assert "smq_cli.main" in modules or "smq_cli.commands.engine_commands" in modules
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert not heavy, f"smq {' '.join(argv)} imports {heavy[:5]}"


SUBPROCESS = """
import json, sys
from smq_cli.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
"""

NOT_FOR_COMPILE = ("pandas", "numpy", "pyarrow", "duckdb", "httpx", "fastapi", "starlette", "agent", "networkx")


def modules_after(tmp_path: Path, *argv: str) -> set[str]:
    """sys.modules once `smq <argv>` has run in a fresh interpreter."""
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", SUBPROCESS, str(out), *argv], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert out.exists(), done.stderr
    return set(json.loads(out.read_text()))


@pytest.mark.parametrize("argv", [
    ("--help",), ("--version",), ("compile", "--db", "shop", '{"metrics": ["OrdersModel__orderCount"]}'),
])
def test_help_and_a_single_model_compile_import_no_executor_server_or_graph_library(
        tmp_path: Path, argv: tuple[str, ...]) -> None:
    modules = modules_after(tmp_path, *argv)
    if argv[0] == "compile":
        assert "sqlglot" in modules and "engine.facade" in modules  # it did compile
    heavy = sorted(m for m in modules if m.split(".")[0] in NOT_FOR_COMPILE)
    assert not heavy, f"smq {' '.join(argv)} imports {heavy[:5]}"


def test_a_join_still_finds_its_path_once_networkx_is_loaded_on_demand(tmp_path: Path) -> None:
    modules = modules_after(tmp_path, "compile", "--db", "shop",
                            '{"metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__segment"]}')
    assert "networkx" in modules


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"smq {metadata.version('smq-semantic-layer')}"


def test_every_command_is_still_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("compile", "serve", "ask", "eval", "mcp", "import", "lint"):
        assert command in out


@pytest.mark.parametrize("smq, start", [("{not json", "smq: the SMQ argument is not valid JSON"),
                                        ("[1]", "smq: the SMQ must be a JSON object"),
                                        ('"x"', "smq: the SMQ must be a JSON object")])
def test_an_error_about_the_smq_argument_is_prefixed_once(capsys: pytest.CaptureFixture[str], smq: str,
                                                          start: str) -> None:
    assert main(["compile", "--db", "shop", smq]) == 2
    err = capsys.readouterr().err
    assert err.startswith(start) and "smq: smq:" not in err, err


def test_every_name_engine_exports_still_imports_from_engine() -> None:
    done = subprocess.run([sys.executable, "-c", """
import sys
import engine
assert "engine.facade" not in sys.modules, "the facade loaded with the package"
from engine import *  # noqa: F403
for name in engine.__all__:
    assert getattr(engine, name) is not None and name in dir(engine), name
from engine import Layer, load_layers
from engine.facade import Layer as FacadeLayer
assert Layer is FacadeLayer and "engine.facade" in sys.modules
try:
    engine.no_such_name
except AttributeError:
    pass
else:
    raise SystemExit("no AttributeError")
"""], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr


# `smq` as its own process (main() without argv, as the console script calls it): sys.modules is read at the
# moment it leaves (it leaves with os._exit, skipping the interpreter's teardown)
ONE_SHOT = """
import json, os, sys
out, sys.argv = sys.argv[1], ["smq", *sys.argv[2:]]
leave = os._exit
def dump_and_leave(code):
    with open(out, "w") as f:
        json.dump({"code": code, "modules": sorted(sys.modules)}, f)
    leave(code)
os._exit = dump_and_leave
from smq_cli.main import main
main()
raise SystemExit("main() returned instead of leaving")
"""
ONE_MODEL = '{"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}'
# what neither command uses: servers, dataframes, the agent, the join-graph library (a one-model SMQ), the worker
# process and its channel, the demo's builder and generator (the demo file is built), MySQL's dialect
# and, for a layer without rollups, row filters or an explain: the rollups (reader, binder, router, mixer), the access
# roles and explain's outline; for a query without cumulative, offset or conversion metrics, their renderers
UNUSED = ("pandas", "numpy", "pyarrow", "fastapi", "starlette", "uvicorn", "httpx", "agent", "service", "networkx",
          "pydantic", "pydantic_core", "multiprocessing", "subprocess", "pickle", "sqlite3", "smq_db.executors.worker",
          "smq_db.executors.worker_process", "smq_db.executors.pool", "smq_db.demo.build", "smq_db.demo.generate",
          "sqlglot.dialects.mysql", "engine.rollups", "engine.layer.rollups", "engine.access.roles", "engine.explain",
          "engine.render.cumulative", "engine.render.offsets", "engine.render.conversion")


# cold: the compiled-SQL cache (smq_cli/sqlcache.py, tests/smq_cli/test_sqlcache.py) off, as on a first run
COLD = {**os.environ, "SMQ_NO_CACHE": "1"}


def one_shot(tmp_path: Path, *argv: str) -> tuple[int, set[str], str]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", ONE_SHOT, str(out), *argv], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2], env=COLD)
    assert out.exists(), done.stderr
    report = json.loads(out.read_text())
    return report["code"], set(report["modules"]), done.stdout


def _unused(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == u or m.startswith(u + ".") for u in UNUSED))


def test_compile_imports_only_the_compiler(tmp_path: Path) -> None:
    code, modules, out = one_shot(tmp_path, "compile", "--db", "shop", ONE_MODEL)
    assert code == 0 and out.startswith("SELECT")
    assert "engine.facade" in modules and "sqlglot" in modules
    assert not _unused(modules) and not [m for m in modules if m.split(".")[0] in ("smq_db", "duckdb")]
    assert "_hashlib" not in modules  # OpenSSL: the layer's SHA-256 is the builtin module's (engine/digests.py); DuckDB loads it


def test_query_runs_its_engine_in_its_own_process_and_imports_only_that(tmp_path: Path) -> None:
    one_shot(tmp_path, "query", "--db", "shop", ONE_MODEL)  # on a fresh clone the first query builds the demo first
    code, modules, out = one_shot(tmp_path, "query", "--db", "shop", ONE_MODEL)
    assert code == 0 and "delivered" in out and "(6 rows)" in out
    assert {"duckdb", "smq_db.executors.duckdb", "smq_db.compiled"} <= modules  # ran here, on checked compiled SQL
    assert not _unused(modules), _unused(modules)
    # and this process held itself to the database's memory bound, as a worker process would have
    probe = ONE_SHOT.replace('json.dump({"code": code, "modules": sorted(sys.modules)}, f)',
                                  'import resource; json.dump({"code": code, "modules": [], '
                                  '"limit": resource.getrlimit(resource.RLIMIT_DATA)[0]}, f)')
    out_file = tmp_path / "limit.json"
    subprocess.run([sys.executable, "-c", probe, str(out_file), "query", "--db", "shop", ONE_MODEL], capture_output=True,
                   text=True, timeout=120, cwd=Path(__file__).resolve().parents[2], env=COLD)
    assert json.loads(out_file.read_text())["limit"] == 1024 ** 3  # the demo's limits: the 1 GiB default


def test_a_query_run_from_python_keeps_the_worker_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import resource

    before = resource.getrlimit(resource.RLIMIT_DATA)
    assert main(["query", "--db", "shop", ONE_MODEL]) == 0
    assert "(6 rows)" in capsys.readouterr().out
    assert resource.getrlimit(resource.RLIMIT_DATA) == before  # a caller's process is never bounded
