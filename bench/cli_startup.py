"""CLI start-up: the wall time of `smq --help`, `smq --version`, `smq compile --help` and a real `smq compile`.

    python bench/cli_startup.py [--runs 7]

Each command runs in a fresh interpreter `--runs` times (median wall and CPU time reported), next to `python -c pass`, so a
figure can be read against the interpreter's own start on a busy machine. Run it once on the old code and
once on the new to compare (docs/performance.md, "CLI start-up"); bytecode is written as usual, so the
first run of a changed file (compiling it) is excluded by a warm-up run of each command.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

SMQ = [sys.executable, "-m", "smq_cli.main"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "smq --help": [*SMQ, "--help"],
    "smq --version": [*SMQ, "--version"],
    "smq compile --help": [*SMQ, "compile", "--help"],
    "smq compile (one model)": [*SMQ, "compile", "--db", "shop", '{"metrics": ["OrdersModel__orderCount"]}'],
    "smq compile (a join)": [*SMQ, "compile", "--db", "shop",
                             '{"metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__segment"]}'],
}


def median_seconds(command: list[str], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system, less sensitive to a busy machine)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as a user's shell runs it
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"{'':<26} {'wall':>7}  {'cpu':>7}")
    for label, command in COMMANDS.items():
        wall, cpu = median_seconds(command, args.runs)
        print(f"{label:<26} {wall:6.3f} s {cpu:6.3f} s", flush=True)


if __name__ == "__main__":
    main()
