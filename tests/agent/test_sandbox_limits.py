"""The python tool's sandbox runs ordinary analysis code on handed data, and its limits hold."""

from __future__ import annotations

import json

import pytest

from agent.sandbox import SandboxError, SandboxLimits, run_python
from tests.agent.sandbox_support import sandbox  # noqa: F401 - fixture

FAST = SandboxLimits(wall_s=10, cpu_s=3, memory_mb=256)
pytestmark = pytest.mark.usefixtures("sandbox")


def test_runs_code_with_the_standard_library():
    out = run_python("import json, statistics\nprint(json.dumps(statistics.mean([1, 2, 3])))", FAST)
    assert out.stdout == "2\n" and out.exit_code == 0 and not out.timed_out and not out.output_truncated


def test_analysis_over_handed_rows():
    data = {"columns": ["country", "revenue"],
            "rows": [["DE", 10.5], ["DE", 20.0], ["UK", 7.25], ["FR", None], ["UK", 3.0]]}
    code = """
import collections, csv, json, statistics
rows = json.load(open("data.json"))["rows"]
by_country = collections.defaultdict(list)
with open("data.csv", newline="") as f:
    for rec in csv.DictReader(f):
        if rec["revenue"]:
            by_country[rec["country"]].append(float(rec["revenue"]))
print(json.dumps({"n": len(rows), "mean": {k: statistics.mean(v) for k, v in sorted(by_country.items())},
                  "median": statistics.median(r[1] for r in rows if r[1] is not None)}))
"""
    out = run_python(code, FAST, data=data)
    assert out.exit_code == 0, out.stderr
    assert json.loads(out.stdout) == {"n": 5, "mean": {"DE": 15.25, "UK": 5.125}, "median": 8.875}


def test_its_scratch_directory_is_writable():
    out = run_python("open('a.txt', 'w').write('hi')\nimport tempfile\nwith tempfile.TemporaryFile() as t: pass\n"
                     "print(open('a.txt').read())", FAST)
    assert out.stdout == "hi\n", out.stderr


def test_wall_clock_limit():
    out = run_python("import time\ntime.sleep(30)", SandboxLimits(wall_s=1))
    assert out.timed_out and out.exit_code is None


def test_cpu_limit():
    out = run_python("while True:\n    pass", SandboxLimits(wall_s=30, cpu_s=1))
    assert not out.timed_out and out.exit_code != 0 and "CPU limit" in out.stderr


def test_memory_limit():
    out = run_python("x = bytearray(1_000_000_000)\nprint('allocated')", FAST)
    assert out.exit_code != 0 and "MemoryError" in out.stderr and "allocated" not in out.stdout


def test_input_size_is_bounded():
    with pytest.raises(SandboxError) as err:
        run_python("print(1)", FAST, data={"rows": ["x" * 1000] * 10_000})
    assert err.value.code == "sandbox_input_too_large"


def test_closing_its_output_does_not_outlive_the_wall_clock():
    out = run_python("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(30)", SandboxLimits(wall_s=1))
    assert out.timed_out and out.exit_code is None
