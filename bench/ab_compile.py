"""Compile speed of two builds side by side (prints figures; never run as a test).

    .venv/bin/python bench/ab_compile.py OLD_COMMIT [NEW_COMMIT] [--rounds 6] [--runs 150]

Each commit is extracted with `git archive` into a temporary folder; the engine benchmark's queries
(bench/bench_engine.py) are compiled uncached in a fresh process of each build, the builds alternating
round by round, so both see the same machine load. Per query the fastest compile of all rounds is kept
(what load disturbs least); the figure is new/old per query, and the median of those ratios.
NEW_COMMIT defaults to the working tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SNIPPET = """
import json, sys
sys.path.insert(0, '.')
from bench.bench_engine import bench_compile
print(json.dumps({name: u_min for name, u_min, _m, _c, _cm in bench_compile(int(sys.argv[1]), 'duckdb')}))
"""


def extract(commit: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def fastest(tree: Path, runs: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", SNIPPET, str(runs)], cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new", nargs="?")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--runs", type=int, default=150)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = extract(args.old, Path(tmp) / "old")
        new = extract(args.new, Path(tmp) / "new") if args.new else ROOT
        best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
        for _ in range(args.rounds):
            for side, tree in (("old", old), ("new", new)):
                for name, ms in fastest(tree, args.runs).items():
                    best[side][name] = min(ms, best[side].get(name, ms))
    names = [n for n in best["new"] if n in best["old"]]
    print(f"fastest uncached compile of {args.rounds} rounds x {args.runs} runs (ms); old {args.old}, new {args.new or 'working tree'}")
    print(f"{'query':32} {'old':>8} {'new':>8} {'new/old':>8}")
    ratios = []
    for name in names:
        ratio = best["new"][name] / best["old"][name]
        ratios.append(ratio)
        print(f"{name:32} {best['old'][name]:8.3f} {best['new'][name]:8.3f} {ratio:8.2f}")
    print(f"{'median ratio':32} {'':8} {'':8} {statistics.median(ratios):8.2f}  (range {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
