"""The Spider 2.0 data tests read ../shared beside the repository (as CI lays it out), wherever the
repository is cloned; without it they skip, except in CI (CI=true), where the data is always there
and its absence must turn the run red instead of skipping silently."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

from . import fixtures, test_scorer_spider2_data as scorer_data


def test_the_spider2_paths_are_relative_to_the_repository() -> None:
    assert SHARED == ROOT.parent / "shared"
    for path in (fixtures.TASKS, fixtures.GOLD, fixtures.EVAL, fixtures.ORACLE, fixtures.SQLITE,
                 scorer_data.GOLD, scorer_data.EVAL, scorer_data.ORACLE):
        assert path.is_relative_to(SHARED), path


def run_marked_test(tmp_path: Path, ci: str | None) -> str:
    """Run a test marked shared_data(<a missing file>) in a fresh pytest; its one-line outcome."""
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_configure, pytest_runtest_setup  # noqa: F401\n")
    (tmp_path / "test_reads_shared.py").write_text(textwrap.dedent(f"""
        import pytest

        @pytest.mark.shared_data({str(tmp_path / "shared" / "missing.csv")!r})
        def test_reads_shared():
            pass
    """))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout


@pytest.mark.parametrize(("ci", "outcome"), [(None, "1 skipped"), ("false", "1 skipped"), ("true", "1 error")])  # a failure in setup: the run is red
def test_missing_shared_data_skips_outside_ci_and_fails_in_ci(tmp_path: Path, ci: str | None, outcome: str) -> None:
    output = run_marked_test(tmp_path, ci)
    assert outcome in output, output
    assert "shared test data missing" in output and "missing.csv" in output, output
