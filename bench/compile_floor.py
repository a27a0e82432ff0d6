"""Compile against its floor, and against the layer's size (issue #32 items 2 and 4; prints figures, never a test).

    PYTHONPATH=. python bench/compile_floor.py [--rounds 7] [--runs 60] [--models 3000] [--base COMMIT]

Floor: for each of bench_engine.py's query shapes on the demo, an uncached `Layer.compile` against sqlglot's own
`tree.sql(dialect, pretty=True)` of the tree that compile produced (fresh trees, generated in place as compile
does), the two timed alternately in the same process; the figure is compile / generation, median over rounds.
Layer size: the same queries over a generated layer of 30 models and of `--models` models (bench/synthetic_layer.py),
compiled alternately in one process; the figure is big / small. Load: a fresh interpreter loads the big layer
(imports excluded, the first full GC pass included), wall and CPU time, best and median of the rounds
(`--load-only`: just that).
`--base COMMIT` runs an old build (`git archive`) in the same rounds, each side in its own fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.synthetic_layer import write_synthetic_layer  # noqa: E402

# what a compile over the synthetic layer asks: one model, a join up the tree, a ratio metric, a filter
SYNTHETIC = {
    "one model": {"metrics": ["Model5__amount0"], "group_by": ["Model5__attr1"]},
    "join, 2 hops": {"metrics": ["Model11__amount1"], "group_by": ["Model2__attr0", "Model11__createdAt__month"]},
    "ratio + filter": {"metrics": ["ratio7"], "group_by": ["Model3__attr2"], "filters": ["Model7__attr3 = 'x'"]},
}

SNIPPET = r"""
import gc, json, statistics, sys, time
sys.path.insert(0, '.')
runs, demo_dir, small_dir, big_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
from bench.bench_engine import QUERIES
from bench.compile_floor import SYNTHETIC
from engine import load_layer, load_layers
out = {"floor": {}, "size": {}}
layer = load_layers(demo_dir)["shop"]
def clock(fn):
    t = time.perf_counter(); fn(); return time.perf_counter() - t
for name, q in QUERIES.items():
    smq = {k: v for k, v in q.items() if not k.startswith("__")}
    role = q.get("__role")
    layer.compile(smq, dialect="duckdb", role=role)
    trees = [layer.compile_expression(smq, dialect="duckdb", role=role) for _ in range(runs)]
    comp, gen = [], []
    for tree in trees:
        comp.append(clock(lambda: layer.compile(smq, dialect="duckdb", role=role, use_cache=False)))
        gen.append(clock(lambda: tree.sql(dialect="duckdb", pretty=True, copy=False)))
    out["floor"][name] = [statistics.median(comp) * 1e3, statistics.median(gen) * 1e3]
small, big = load_layer(small_dir), load_layer(big_dir)
gc.collect()
for name, smq in SYNTHETIC.items():
    small.compile(smq, use_cache=False); big.compile(smq, use_cache=False)
    s, b = [], []
    for _ in range(runs):
        s.append(clock(lambda: small.compile(smq, use_cache=False)))
        b.append(clock(lambda: big.compile(smq, use_cache=False)))
    out["size"][name] = [statistics.median(s) * 1e3, statistics.median(b) * 1e3]
print(json.dumps(out))
"""

LOAD = r"""
import gc, sys, time
sys.path.insert(0, '.')
from engine import load_layer
t, c = time.perf_counter(), time.process_time()
layer = load_layer(sys.argv[1])
gc.collect()
print(time.perf_counter() - t, time.process_time() - c, len(layer.models))
"""


def extract(commit: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    # the old build may predate this script: give it this one's (it only reads the engine's public face)
    (into / "bench" / "compile_floor.py").write_text(Path(__file__).read_text())
    return into


def run(tree: Path, code: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env, capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--models", type=int, default=3000)
    ap.add_argument("--base")
    ap.add_argument("--load-only", action="store_true", help="only the big layer's load")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = write_synthetic_layer(Path(tmp) / "small", 30) / "synthetic"
        big = write_synthetic_layer(Path(tmp) / "big", args.models) / "synthetic"
        sides = {"now": ROOT}
        if args.base:
            sides = {"base": extract(args.base, Path(tmp) / "base"), **sides}
        floor: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
        size: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
        loads: dict[str, list[float]] = {s: [] for s in sides}  # wall
        cpus: dict[str, list[float]] = {s: [] for s in sides}
        for _ in range(args.rounds):
            for side, tree in sides.items():
                wall, cpu, _n = run(tree, LOAD, str(big)).split()
                loads[side].append(float(wall))
                cpus[side].append(float(cpu))
                if args.load_only:
                    continue
                got = json.loads(run(tree, SNIPPET, str(args.runs), str(ROOT / "semantic_models"), str(small), str(big)))
                for name, (c, g) in got["floor"].items():
                    floor[side].setdefault(name, []).append(c / g)
                for name, (s, b) in got["size"].items():
                    size[side].setdefault(name, []).append(b / s)
    with open("/proc/loadavg") as f:
        load_avg = " ".join(f.read().split()[:3])
    names = list(sides)
    print(f"{args.rounds} rounds x {args.runs} runs, load average {load_avg}; medians over rounds")
    if not args.load_only:
        report(args, names, floor, size)
    print(f"\nload of {args.models} models in a fresh process, s (bound 1.5)\n{'':32}" + "".join(f"{s:>8}" for s in names))
    for label, got in (("wall", loads), ("CPU", cpus)):
        print(f"{label + ', best':32}" + "".join(f"{min(got[s]):8.3f}" for s in names))
        print(f"{label + ', median':32}" + "".join(f"{statistics.median(got[s]):8.3f}" for s in names))
        if args.base:
            ratios = [n / b for n, b in zip(got["now"], got["base"])]
            print(f"{label + ', now / base (median)':32}{statistics.median(ratios):16.2f}")


def report(args: argparse.Namespace, names: list[str], floor: dict, size: dict) -> None:
    print(f"\ncompile / sqlglot's generation of its tree (bound 2x)\n{'query':32}" + "".join(f"{s:>8}" for s in names))
    for q in floor["now"]:
        print(f"{q:32}" + "".join(f"{statistics.median(floor[s][q]):8.2f}" for s in names))
    print(f"{'median of queries':32}" + "".join(
        f"{statistics.median(statistics.median(v) for v in floor[s].values()):8.2f}" for s in names))
    print(f"\ncompile over {args.models} models / over 30 models (flat: 1.0)\n{'query':32}" + "".join(f"{s:>8}" for s in names))
    for q in size["now"]:
        print(f"{q:32}" + "".join(f"{statistics.median(size[s][q]):8.2f}" for s in names))


if __name__ == "__main__":
    main()
