"""`smq compile` start-up: the CLI as it was (every command's module imported: agent, pandas...) against
now (only the command's own module), in one run, so the ratio holds on a busy machine.

    python bench/cli_startup.py [--runs 7]

Both sides run a fresh interpreter; "before" builds the parser with every command registered (what
`smq compile` did until the lazy registration), "after" runs `smq compile --help`. Reported: the
median wall time of each, their ratio, and a real `smq compile` of the demo's one-line SMQ.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BEFORE = [sys.executable, "-c", "from smq_cli.main import build_parser; build_parser(None).parse_args(['compile', '--help'])"]
AFTER = [sys.executable, "-m", "smq_cli.main", "compile", "--help"]
COMPILE = [sys.executable, "-m", "smq_cli.main", "compile", "--db", "shop", '{"metrics": ["OrdersModel__orderCount"]}']


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    python = median_seconds([sys.executable, "-c", "pass"], args.runs)
    before, after = median_seconds(BEFORE, args.runs), median_seconds(AFTER, args.runs)
    compiled = median_seconds(COMPILE, args.runs)
    print(f"python alone           {python:6.3f} s")
    print(f"before (all commands)  {before:6.3f} s   smq compile --help")
    print(f"after  (lazy commands) {after:6.3f} s   smq compile --help   ratio after/before {after / before:.2f}")
    print(f"smq compile (a real SMQ on the demo layer) {compiled:6.3f} s")


if __name__ == "__main__":
    main()
