"""CLI start-up against its floors, in one run: `smq compile` next to `import sqlglot`, `smq query` next to Python
and the DuckDB driver running the same SQL, and the help commands next to the bare interpreter.

    PYTHONPATH=. python bench/cli_startup.py [--rounds 9] [--base COMMIT]

Every command runs in a fresh interpreter once per round, the commands interleaved round after round, so a busy
machine slows all of them alike. Reported per command: the median CPU time (user + system of the child, the
figure to read: it does not count waiting for a core), the median wall time, and the median over rounds of
its CPU time divided by its floor's in the same round. Bytecode is written as usual; a warm-up round (not
counted) compiles what changed. The demo database is built first if needed. The load average is printed.
With `--base`, the same smq commands from that commit (`git archive`, run from its own tree) join every round.

Cold and warm: every smq command runs with the compiled-SQL cache off (`SMQ_NO_CACHE=1`, smq_cli/sqlcache.py: a
first run, or a changed layer), except the rows marked "cached", which run on a cache (a temporary
XDG_CACHE_HOME) that the warm-up round filled: a repeat of the same query on an unchanged layer.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMQ = [sys.executable, "-m", "smq_cli.main"]
ONE_MODEL = '{"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}'
A_JOIN = '{"metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__segment"]}'
DEMO = ROOT / "semantic_models" / "shop" / "data" / "shop.duckdb"


def driver_alone(sql: str) -> list[str]:
    """Python and the DuckDB driver running `sql` on the demo file and printing the rows: `smq query`'s floor."""
    code = f"import duckdb; print(duckdb.connect({str(DEMO)!r}, read_only=True).execute({sql!r}).fetchall())"
    return [sys.executable, "-c", code]


def commands() -> dict[str, tuple[list[str], str | None]]:
    """label -> (command, the label of its floor)."""
    from engine import load_layers

    sql = load_layers(ROOT / "semantic_models")["shop"].compile(ONE_MODEL)
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        "python -c 'import sqlglot'": ([sys.executable, "-c", "import sqlglot"], None),
        "python + duckdb, the same SQL": (driver_alone(sql), None),
        "smq --help": ([*SMQ, "--help"], "python -c pass"),
        "smq --version": ([*SMQ, "--version"], "python -c pass"),
        "smq compile --help": ([*SMQ, "compile", "--help"], "python -c pass"),
        "smq compile (one model)": ([*SMQ, "compile", "--db", "shop", ONE_MODEL], "python -c 'import sqlglot'"),
        "smq compile (a join)": ([*SMQ, "compile", "--db", "shop", A_JOIN], "python -c 'import sqlglot'"),
        "smq query (one model)": ([*SMQ, "query", "--db", "shop", ONE_MODEL], "python + duckdb, the same SQL"),
        "smq compile (one model), cached": ([*SMQ, "compile", "--db", "shop", ONE_MODEL], "python -c 'import sqlglot'"),
        "smq compile (a join), cached": ([*SMQ, "compile", "--db", "shop", A_JOIN], "python -c 'import sqlglot'"),
        "smq query (one model), cached": ([*SMQ, "query", "--db", "shop", ONE_MODEL], "python + duckdb, the same SQL"),
    }


def run_once(command: list[str], tree: Path = ROOT, cache: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run in a fresh interpreter, from `tree`; `cache`: the
    compiled-SQL cache's folder (XDG_CACHE_HOME), None: the cache off."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SMQ_NO_CACHE")}  # as a user's shell runs it
    env["PYTHONPATH"] = str(tree)
    if cache is None:
        env["SMQ_NO_CACHE"] = "1"
    else:
        env["XDG_CACHE_HOME"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=tree)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--base", help="also run the smq commands of this commit (e.g. main before a change)")
    args = parser.parse_args()
    from smq_db.demo.build import ensure_demo

    ensure_demo(ROOT / "semantic_models" / "shop")
    table = commands()
    trees = {label: ROOT for label in table}
    with tempfile.TemporaryDirectory(prefix="smq-startup-") as tmp:
        if args.base:
            base = Path(tmp) / "base"
            base.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
            for label, (command, floor) in list(table.items()):
                if label.startswith("smq") and not label.endswith("cached"):  # the base has no cache to warm
                    table[f"{args.base}: {label}"] = (command, floor)
                    trees[f"{args.base}: {label}"] = base
        walls: dict[str, list[float]] = {label: [] for label in table}
        cpus: dict[str, list[float]] = {label: [] for label in table}
        load_before = os.getloadavg()[0]
        for round_ in range(args.rounds + 1):
            for label, (command, _) in table.items():
                wall, cpu = run_once(command, trees[label], Path(tmp) / "cache" if label.endswith("cached") else None)
                if round_:  # round 0 warms up (and builds the base tree's demo database)
                    walls[label].append(wall)
                    cpus[label].append(cpu)
    print(f"{args.rounds} rounds, interleaved; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
          f"(1 min), {os.cpu_count()} cores")
    print(f"{'command':<42} {'CPU s':>7} {'wall s':>7}  {'CPU / floor (median of rounds)':<40}")
    for label, (_, floor) in table.items():
        ratio = ""
        if floor is not None:
            ratios = [c / f for c, f in zip(cpus[label], cpus[floor]) if f > 0]
            ratio = f"{statistics.median(ratios):.2f}x {floor}"
        print(f"{label:<42} {statistics.median(cpus[label]):7.3f} {statistics.median(walls[label]):7.3f}  {ratio}")


if __name__ == "__main__":
    main()
