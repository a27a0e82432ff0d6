"""The channel between the service and a DuckDB/SQLite worker process (smq_db/executors/worker*.py).

A worker runs a client's SQL; what it sends back is data to the parent and nothing more. Before, replies were
pickled: a worker made to send a crafted pickle ran code in the service (`test_a_hostile_reply_runs_nothing`
fails there: the marker file is written). Now replies are JSON in length-prefixed frames, a frame longer than
the result could be is refused before it is read, and a worker that sends anything unreadable is replaced.
The worker imports no SQL parser: its parent checks every query before sending it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from smq_db.executors import worker
from smq_db.executors.base import result_budget
from smq_db.executors.errors import ExecutionError, QueryTimeout, ReadOnlyViolation
from smq_db.executors.limits import ResourceLimits
from smq_db.executors.worker import IsolatedExecutor


@pytest.fixture(scope="module")
def duck_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import duckdb

    path = tmp_path_factory.mktemp("channel") / "small.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE t AS SELECT range AS n, 'x' || range AS s FROM range(1000)")
    return path


# a worker gone wrong: it opens like a real one, then answers the first query with `reply`
HOSTILE = """
import socket, struct, sys
sock = socket.socket(fileno=int(sys.argv[1]))
def recv():
    head = b""
    while len(head) < 4:
        head += sock.recv(4 - len(head))
    size, body = struct.unpack("!I", head)[0], b""
    while len(body) < size:
        body += sock.recv(size - len(body))
    return body
def send(raw):
    sock.sendall(struct.pack("!I", len(raw)) + raw)
recv()
send(b'["ready"]')
recv()
sock.sendall(REPLY)
sock.recv(1)
"""


def _pickle_that_writes(marker: Path) -> bytes:
    """A pickle whose loading writes `marker` (what a worker could send to a parent that unpickles)."""
    import pickle

    class Writes:
        def __reduce__(self) -> tuple[Any, ...]:
            return (Path.write_text, (marker, "ran in the service"))

    payload = pickle.dumps(Writes())
    return len(payload).to_bytes(4, "big") + payload


def _hostile(monkeypatch: pytest.MonkeyPatch, reply: bytes) -> None:
    monkeypatch.setattr(worker, "_BOOTSTRAP", f"REPLY = {reply!r}\n" + HOSTILE)


def test_a_hostile_reply_runs_nothing(duck_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "marker"
    _hostile(monkeypatch, _pickle_that_writes(marker))
    executor = IsolatedExecutor("duckdb", duck_file, dialect="duckdb", limits=ResourceLimits(workers=1))
    try:
        with pytest.raises(ExecutionError, match="worker process sent an unreadable reply"):
            executor.execute("SELECT count(*) FROM t")
        assert not marker.exists()
        monkeypatch.undo()  # the next worker is a real one: the hostile one was not given back
        assert executor.execute("SELECT count(*) AS n FROM t").rows == [[1000]]
    finally:
        executor.close()


def test_a_frame_longer_than_the_result_can_be_is_refused_unread(duck_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _hostile(monkeypatch, (2**32 - 1).to_bytes(4, "big") + b"[")  # claims 4 GiB
    executor = IsolatedExecutor("duckdb", duck_file, dialect="duckdb", limits=ResourceLimits(workers=1))
    try:
        with result_budget(max_bytes=1_000_000, timeout_s=10):
            with pytest.raises(ExecutionError, match="longer than the"):
                executor.execute("SELECT count(*) FROM t")
    finally:
        executor.close()


def test_the_worker_imports_no_sql_parser(duck_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules = tmp_path / "modules.json"
    report = (f"import atexit, json, sys; atexit.register(lambda: open({str(modules)!r}, 'w').write("
              "json.dumps(sorted(sys.modules)))); ")
    monkeypatch.setattr(worker, "_BOOTSTRAP", report + worker._BOOTSTRAP)
    executor = IsolatedExecutor("duckdb", duck_file, dialect="duckdb", limits=ResourceLimits(workers=1))
    try:
        assert executor.execute("SELECT count(*) AS n FROM t WHERE s LIKE 'x1%'").rows == [[111]]
        with pytest.raises(ReadOnlyViolation):  # refused here, before anything is sent
            executor.execute("DELETE FROM t")
    finally:
        executor.close()
    loaded = set(json.loads(modules.read_text()))
    assert "duckdb" in loaded
    assert not {"sqlglot", "smq_db.readonly", "pickle"} & loaded, sorted({"sqlglot", "smq_db.readonly", "pickle"} & loaded)


def test_rows_cross_as_they_were_made(duck_file: Path) -> None:
    executor = IsolatedExecutor("duckdb", duck_file, dialect="duckdb", limits=ResourceLimits(workers=1))
    try:
        sql = ("SELECT 170141183460469231731687303715884105727::HUGEINT AS big, 0.1::DOUBLE AS tenth, "
               "'é\u2028\"\\\\' AS text, NULL AS nothing, [1, 2] AS list, {'k': 'v'} AS struct, DATE '2024-02-29' AS day, "
               "12.50::DECIMAL(6, 2) AS price")
        result = executor.execute(sql)
        assert result.rows == [[2**127 - 1, 0.1, 'é\u2028"\\\\', None, [1, 2], {"k": "v"}, "2024-02-29", 12.5]]
        assert result.columns == ["big", "tenth", "text", "nothing", "list", "struct", "day", "price"]
        assert result.column_types == ["HUGEINT", "DOUBLE", "VARCHAR", '"NULL"', "INTEGER[]", "STRUCT(k VARCHAR)", "DATE",
                                       "DECIMAL(6,2)"]
    finally:
        executor.close()


def test_on_an_event_loop_the_same_rows_and_refusals(duck_file: Path) -> None:
    executor = IsolatedExecutor("duckdb", duck_file, dialect="duckdb", limits=ResourceLimits(workers=2))

    async def in_thread(call: Any) -> Any:
        return await asyncio.to_thread(call)

    async def run() -> None:
        sql = "SELECT n, s FROM t ORDER BY n"
        together = await asyncio.gather(*(executor.execute_async(sql, max_rows=500, in_thread=in_thread) for _ in range(4)))
        sync = executor.execute(sql, max_rows=500)
        assert all(r.rows == sync.rows and r.truncated and r.row_count == 500 for r in together)
        with pytest.raises(ReadOnlyViolation):
            await executor.execute_async("DROP TABLE t", in_thread=in_thread)
        with pytest.raises(QueryTimeout):
            await executor.execute_async("SELECT max(length(repeat('x', 100000000))) FROM range(1000)", timeout_s=0.2,
                                         in_thread=in_thread)
        # a request cancelled while its query runs takes its worker with it; the next query gets another
        slow = asyncio.ensure_future(executor.execute_async("SELECT sum(hash(range)) FROM range(3000000000)", in_thread=in_thread))
        await asyncio.sleep(0.3)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        assert (await executor.execute_async("SELECT count(*) AS n FROM t", in_thread=in_thread)).rows == [[1000]]

    try:
        asyncio.run(run())
    finally:
        executor.close()

