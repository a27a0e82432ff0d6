"""A fake BigQuery REST API for the real google-cloud-bigquery client, backed by DuckDB.

It is plugged in as the client's HTTP session (``bigquery.Client(_http=FakeBigQuery())``), so the
library's own job, polling, paging, cancel and type-conversion code runs for real; only the network
is replaced. Queries are transpiled BigQuery -> DuckDB with sqlglot and run in a thread per job,
so a slow query is really running while the client polls, and ``jobs.cancel`` really interrupts it.

Covered endpoints: jobs.insert (query jobs, dry runs), jobs.get, jobs.cancel, jobs.getQueryResults.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import duckdb
import requests
import sqlglot
from sqlglot import exp

_STATEMENT_TYPES = {exp.Select: "SELECT", exp.Union: "SELECT", exp.Except: "SELECT", exp.Intersect: "SELECT",
                    exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE", exp.Merge: "MERGE",
                    exp.Create: "CREATE_TABLE", exp.Drop: "DROP_TABLE"}


@dataclass
class _Job:
    job_id: str
    project: str
    sql: str
    done: threading.Event = field(default_factory=threading.Event)
    cursor: Any = None
    columns: list[tuple[str, str]] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    error: tuple[str, str] | None = None  # (reason, message)
    cancelled: bool = False


class FakeBigQuery(requests.Session):
    """A requests.Session answering BigQuery v2 REST calls from a DuckDB database."""

    is_mtls = False

    def __init__(self) -> None:
        super().__init__()
        self.db = duckdb.connect()
        self.jobs: dict[str, _Job] = {}
        self.requests: list[tuple[str, str, dict]] = []  # (method, path, body) for assertions
        self._lock = threading.Lock()
        self._auth_request = SimpleNamespace(session=self)  # Client.close() expects an AuthorizedSession

    # ---- test helpers -------------------------------------------------------------------------
    def load(self, duckdb_sql: str) -> None:
        self.db.execute(duckdb_sql)

    # ---- requests.Session ---------------------------------------------------------------------
    def request(self, method: str, url: str, data: Any = None, headers: Any = None, timeout: Any = None, **_: Any) -> requests.Response:  # type: ignore[override]
        response = self._route(method, url, data)
        response.request = requests.Request(method, url).prepare()
        response.url = url
        return response

    def _route(self, method: str, url: str, data: Any) -> requests.Response:
        parsed = urllib.parse.urlparse(url)
        path = parsed.path.removeprefix("/bigquery/v2")
        params = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        body = json.loads(data) if data else {}
        with self._lock:
            self.requests.append((method, path, body))
        parts = path.strip("/").split("/")  # projects/{p}/jobs[/{id}[/cancel]] | projects/{p}/queries/{id}
        if method == "POST" and parts[2:] == ["jobs"]:
            return self._insert(parts[1], body)
        if method == "POST" and len(parts) == 5 and parts[4] == "cancel":
            return self._cancel(parts[3])
        if method == "GET" and parts[2] == "jobs":
            return _response(200, self._resource(self.jobs[parts[3]]))
        if method == "GET" and parts[2] == "queries":
            return self._results(self.jobs[parts[3]], params)
        return _response(404, _error(404, "notFound", f"fake BigQuery has no route {method} {path}"))

    # ---- endpoints ----------------------------------------------------------------------------
    def _insert(self, project: str, body: dict) -> requests.Response:
        config = body["configuration"]
        sql = config["query"]["query"]
        job = _Job(body["jobReference"]["jobId"], project, sql)
        try:
            tree = sqlglot.parse_one(sql, read="bigquery")
            duck_sql = tree.sql("duckdb")
        except sqlglot.errors.ParseError as error:
            return _response(400, _error(400, "invalidQuery", f"Syntax error: {error}"))
        if config.get("dryRun"):
            statement = _STATEMENT_TYPES.get(type(tree), "SCRIPT")
            if statement == "SELECT":
                try:
                    self.db.cursor().execute("EXPLAIN " + duck_sql)
                except duckdb.Error as error:
                    return _response(404, _error(404, "notFound", str(error).splitlines()[0]))
            resource = {"jobReference": body["jobReference"], "configuration": config, "status": {"state": "DONE"},
                        "statistics": {"query": {"statementType": statement, "totalBytesProcessed": "0"}}}
            return _response(200, resource)
        with self._lock:
            self.jobs[job.job_id] = job
        job.cursor = self.db.cursor()
        threading.Thread(target=self._run, args=(job, duck_sql), daemon=True).start()
        return _response(200, self._resource(job))

    def _run(self, job: _Job, duck_sql: str) -> None:
        try:
            job.cursor.execute(duck_sql)
            job.columns = [(d[0], str(d[1])) for d in job.cursor.description]
            job.rows = job.cursor.fetchall()
        except duckdb.Error as error:
            reason = "stopped" if job.cancelled else "invalidQuery"
            message = "Job execution was cancelled: User requested cancellation" if job.cancelled else str(error).splitlines()[0]
            job.error = (reason, message)
        finally:
            job.done.set()

    def _cancel(self, job_id: str) -> requests.Response:
        job = self.jobs[job_id]
        if not job.done.is_set():
            job.cancelled = True
            job.cursor.interrupt()
            job.done.wait(5)
        return _response(200, {"kind": "bigquery#jobCancelResponse", "job": self._resource(job)})

    def _results(self, job: _Job, params: dict) -> requests.Response:
        wait_s = min(float(params.get("timeoutMs", 10_000)) / 1000, 0.2)
        reference = {"projectId": job.project, "jobId": job.job_id, "location": "US"}
        if not job.done.wait(wait_s):
            return _response(200, {"kind": "bigquery#getQueryResultsResponse", "jobReference": reference, "jobComplete": False})
        if job.error:
            return _response(400, _error(400, job.error[0], job.error[1]))
        limit = int(params["maxResults"]) if "maxResults" in params else len(job.rows)
        rows = [{"f": [{"v": _encode(v)} for v in row]} for row in job.rows[:limit]]
        schema = {"fields": [{"name": name, "type": _bq_type(t), "mode": "NULLABLE"} for name, t in job.columns]}
        return _response(200, {"kind": "bigquery#getQueryResultsResponse", "jobReference": reference, "jobComplete": True,
                               "schema": schema, "totalRows": str(len(job.rows)), "rows": rows})

    def _resource(self, job: _Job) -> dict:
        status: dict[str, Any] = {"state": "DONE" if job.done.is_set() else "RUNNING"}
        if job.error:
            status["errorResult"] = {"reason": job.error[0], "message": job.error[1]}
            status["errors"] = [status["errorResult"]]
        return {"jobReference": {"projectId": job.project, "jobId": job.job_id, "location": "US"},
                "configuration": {"query": {"query": job.sql}}, "status": status,
                "statistics": {"query": {"statementType": "SELECT"}}}


def _bq_type(duck_type: str) -> str:
    t = duck_type.upper()
    if t in {"BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "UBIGINT", "UINTEGER"}:
        return "INTEGER"
    if t.startswith("DECIMAL"):
        return "NUMERIC"
    if t in {"DOUBLE", "FLOAT", "REAL"}:
        return "FLOAT"
    return {"BOOLEAN": "BOOLEAN", "DATE": "DATE", "TIMESTAMP": "DATETIME", "TIMESTAMP WITH TIME ZONE": "TIMESTAMP",
            "BLOB": "BYTES", "TIME": "TIME"}.get(t, "STRING")


def _encode(value: Any) -> Any:
    """A value as BigQuery's JSON rows carry it: strings, TIMESTAMP as int64 microseconds."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return str(int(value.timestamp() * 1_000_000))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    return str(value)


def _error(code: int, reason: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "errors": [{"reason": reason, "message": message}], "status": "INVALID_ARGUMENT"}}


def _response(status: int, payload: dict) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response.headers["content-type"] = "application/json; charset=UTF-8"
    response._content = json.dumps(payload).encode()
    response.encoding = "utf-8"
    return response
