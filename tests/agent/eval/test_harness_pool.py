"""The harness's run mechanics: resume, per-instance timeouts, retries on rate limits, parallel
workers, the CSV format, the progress bar. Real tasks and databases, scripted models, fake sleeps."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

from agent import AgentConfig
from agent.eval.harness import EvalSpec, run_eval
from agent.eval.manifest import InstanceRecord
from agent.eval.outputs import result_csv
from agent.eval.progress import ProgressBar
from agent.eval.scorer import read_result_csv
from agent.eval.tasks import Task
from agent.providers.base import ProviderError
from agent.providers.scripted import ScriptedProvider, call, say
from agent.retry import RetryPolicy
from tests.agent.eval.fixtures import COVER_SMQ, IDS, MODELS, ORACLE, SELECT, TASKS, answering, make_sqlite_dir, oracle_sql, requires_data

pytestmark = requires_data


def spec(tmp_path: Path, **changes) -> EvalSpec:
    values = dict(tasks_file=TASKS, select=SELECT, out_dir=tmp_path / "out", workers=3, timeout_s=60,
                  models_dir=MODELS, sqlite_dir=make_sqlite_dir(tmp_path / "sqlite"),
                  agent_config=AgentConfig(trace_dir=None, retry=RetryPolicy(max_attempts=1)))
    values.update(changes)
    return EvalSpec(**values)


class FakeSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


# -- resume ---------------------------------------------------------------------------------------
def test_resume_skips_finished_instances(tmp_path):
    first = run_eval(spec(tmp_path, select="local054,local055", oracle_sql_dir=ORACLE))
    assert [r.instance_id for r in first.records] == ["local054", "local055"]
    out = tmp_path / "out"
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("local05[45].*")}
    second = run_eval(spec(tmp_path, oracle_sql_dir=ORACLE))
    assert second.skipped == ["local054", "local055"]
    assert sorted(r.instance_id for r in second.records) == ["local081", "local085", "local198"]
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("local05[45].*")} == stamps  # untouched
    assert "5 selected, 3 run, 2 skipped" in second.text()
    manifest = json.loads((out / "run.json").read_text())
    assert sorted(manifest["instances"]) == sorted(IDS)  # earlier records kept
    assert manifest["summary"]["skipped"] == 2 and manifest["summary"]["ran"] == 3


def test_resume_reruns_errors_but_not_give_ups(tmp_path):
    def first_script(task: Task) -> ScriptedProvider:
        if task.instance_id == "local054":
            return ScriptedProvider([say("Thinking."), say("Still thinking.")])  # the step budget runs out
        if task.instance_id == "local055":
            return ScriptedProvider([ProviderError("bad request", status=400)])
        return answering(task)

    first = run_eval(spec(tmp_path, agent_config=AgentConfig(trace_dir=None, max_turns=2)), provider_factory=first_script)
    status = {r.instance_id: r.status for r in first.records}
    assert status == {"local054": "gave_up", "local055": "error", "local081": "answered", "local085": "answered",
                      "local198": "answered"}
    assert "status: **gave_up**" in (tmp_path / "out" / "local054.md").read_text()
    second = run_eval(spec(tmp_path), provider_factory=answering)
    assert sorted(second.skipped) == ["local054", "local081", "local085", "local198"]
    assert [(r.instance_id, r.status) for r in second.records] == [("local055", "answered")]
    third = run_eval(spec(tmp_path, overwrite=True), provider_factory=answering)
    assert third.skipped == [] and third.count("answered") == 5


def test_rerun_removes_stale_outputs_first(tmp_path):
    run_eval(spec(tmp_path, select="local054", oracle_sql_dir=ORACLE))
    out = tmp_path / "out"
    summary = run_eval(spec(tmp_path, select="local054", oracle_sql_dir=tmp_path, overwrite=True))  # no oracle file here
    assert summary.records[0].status == "error" and "no oracle SQL for local054" in summary.records[0].error
    assert not (out / "local054.csv").exists() and not (out / "local054.sql").exists()


# -- timeouts and parallelism -----------------------------------------------------------------------
def test_a_hung_instance_times_out_without_stopping_the_others(tmp_path):
    release = threading.Event()

    def hang(messages):
        release.wait(10)
        return call("execute", "too late", sql="SELECT 1")

    def factory(task: Task) -> ScriptedProvider:
        return ScriptedProvider([hang]) if task.instance_id == "local055" else answering(task)

    started = time.monotonic()
    try:
        summary = run_eval(spec(tmp_path, workers=2, timeout_s=1.0, timeout_grace_s=0.2), provider_factory=factory)
    finally:
        release.set()
    assert time.monotonic() - started < 5
    status = {r.instance_id: r.status for r in summary.records}
    assert status.pop("local055") == "timeout" and set(status.values()) == {"answered"}
    hung = next(r for r in summary.records if r.instance_id == "local055")
    assert hung.error == "no result after 1.2 s: the instance was abandoned" and 1.0 <= hung.seconds < 3
    out = tmp_path / "out"
    assert "**timeout**" in (out / "local055.md").read_text() and not (out / "local055.csv").exists()
    time.sleep(0.3)  # the abandoned run ends once released; it must not write anything
    assert not (out / "local055.csv").exists()


def test_workers_run_instances_concurrently(tmp_path):
    barrier = threading.Barrier(3, timeout=5)

    def factory(task: Task) -> ScriptedProvider:
        def meet(messages):
            barrier.wait()  # only passes when three instances are in flight at once
            return call("convertSmqToSql", "See the tables.", smq=COVER_SMQ[task.db])

        return ScriptedProvider([meet, call("execute", "Answer.", sql=oracle_sql(task.instance_id))])

    summary = run_eval(spec(tmp_path, select="local054,local055,local198", workers=3), provider_factory=factory)
    assert summary.count("answered") == 3


# -- retries on rate limits -------------------------------------------------------------------------
def limited_then_answering(failures: int, counter: dict[str, int], error: ProviderError | None = None):
    def factory(task: Task) -> ScriptedProvider:
        counter[task.instance_id] = counter.get(task.instance_id, 0) + 1
        if counter[task.instance_id] <= failures:
            return ScriptedProvider([error or ProviderError("429 Too Many Requests: quota exceeded", status=429)])
        return answering(task)
    return factory


def test_rate_limited_instance_is_retried_with_exponential_backoff(tmp_path):
    sleep, counter = FakeSleep(), {}
    summary = run_eval(spec(tmp_path, select="local054", retries=2, retry_base_s=30, timeout_s=600), sleep=sleep, rand=lambda: 0.0,
                       provider_factory=limited_then_answering(2, counter))
    (record,) = summary.records
    assert record.status == "answered" and record.attempts == 3 and counter["local054"] == 3
    assert sleep.calls == [30.0, 60.0]
    assert (tmp_path / "out" / "local054.csv").is_file()


def test_retries_are_bounded(tmp_path):
    sleep = FakeSleep()
    summary = run_eval(spec(tmp_path, select="local054", retries=2, retry_base_s=5), sleep=sleep, rand=lambda: 0.0,
                       provider_factory=limited_then_answering(99, {}))
    (record,) = summary.records
    assert record.status == "error" and record.attempts == 3 and sleep.calls == [5.0, 10.0]
    assert "429 Too Many Requests" in record.error


def test_backoff_is_capped_and_jittered_down(tmp_path):
    sleep = FakeSleep()
    run_eval(spec(tmp_path, select="local054", retries=3, retry_base_s=30, retry_max_s=50), sleep=sleep, rand=lambda: 1.0,
             provider_factory=limited_then_answering(99, {}))
    assert sleep.calls == [15.0, 25.0, 25.0]  # min(50, 30 * 2^k) scaled by 1 - 0.5 * rand


def test_client_errors_are_not_retried(tmp_path):
    sleep = FakeSleep()
    summary = run_eval(spec(tmp_path, select="local054"), sleep=sleep,
                       provider_factory=limited_then_answering(99, {}, ProviderError("invalid API key", status=401)))
    assert summary.records[0].attempts == 1 and summary.records[0].status == "error" and sleep.calls == []


def test_the_loops_own_backoff_uses_the_harness_sleep(tmp_path):
    sleep = FakeSleep()

    def factory(task: Task) -> ScriptedProvider:
        script = answering(task)
        script._steps.insert(0, ProviderError("slow down", status=429, retry_after=2.0))
        return script

    summary = run_eval(spec(tmp_path, select="local054", agent_config=AgentConfig(trace_dir=None)), sleep=sleep,
                       rand=lambda: 0.0, provider_factory=factory)
    assert summary.records[0].status == "answered" and summary.records[0].attempts == 1
    assert sleep.calls == [2.0]  # the loop retried the call, honouring Retry-After; no instance retry


# -- outputs ------------------------------------------------------------------------------------------
def test_csv_reads_back_as_the_values(tmp_path):
    rows = [[1, 2.5, "a,b", None, True, "line\nbreak", 12345678901234567],
            [None, 0.1 + 0.2, 'say "hi"', "x", False, "", -3]]
    path = tmp_path / "r.csv"
    path.write_text(result_csv(["i", "f", "s", "n", "b", "t", "big"], rows), encoding="utf-8")
    frame = read_result_csv(path)
    assert list(frame.columns) == ["i", "f", "s", "n", "b", "t", "big"]
    assert frame["f"].tolist() == [2.5, 0.30000000000000004]
    assert frame["s"].tolist() == ["a,b", 'say "hi"'] and frame["t"].tolist()[0] == "line\nbreak"
    assert frame["i"].isna().tolist() == [False, True] and frame["n"].isna().tolist() == [True, False]
    assert frame["b"].tolist() == [True, False] and frame["big"].tolist() == [12345678901234567, -3]
    assert result_csv(["x"], []) == "x\n"  # header only: an empty result


def test_progress_bar_one_line_per_instance_off_a_terminal():
    stream, now = io.StringIO(), [100.0]
    bar = ProgressBar(stream, clock=lambda: now[0])
    bar.start(2, 1)
    now[0] = 165.0
    bar.update(InstanceRecord("local054", "chinook", "sqlite", "answered", tokens={"total": 1500}))
    bar.update(InstanceRecord("local055", "chinook", "sqlite", "error", tokens={"total": 0}))
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "running 2 instance(s) (1 already finished, skipped)"
    assert lines[1].startswith("[############------------] 1/2  ok 1  failed 0  1.5k tok  01:05  local054 answered")
    assert lines[2].endswith("2/2  ok 1  failed 1  1.5k tok  01:05  local055 error")


def test_no_retry_when_the_wait_would_pass_the_instance_timeout(tmp_path):
    sleep = FakeSleep()
    summary = run_eval(spec(tmp_path, select="local054", retries=2, retry_base_s=30, timeout_s=45), sleep=sleep,
                       rand=lambda: 0.0, provider_factory=limited_then_answering(99, {}))
    assert summary.records[0].attempts == 2 and sleep.calls == [30.0]  # a second wait of 60 s would not fit in 45 s
