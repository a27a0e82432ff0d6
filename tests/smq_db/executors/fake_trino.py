"""A local Trino coordinator, as far as the client protocol goes, for the Trino executor's tests.

Built from Trino's documented client protocol (https://trino.io/docs/current/develop/client-protocol.html):
``POST /v1/statement`` with the SQL as body answers a QueryResults document; the client follows
``nextUri`` with GETs until a document has none; ``columns`` and ``data`` carry the rows (values as
JSON, dates and decimals as strings); a failed query answers an ``error`` object; ``DELETE`` on
``nextUri`` cancels. The SQL really runs, on an in-memory DuckDB holding the table it is given.
Queries naming ``slow_table`` never finish (state RUNNING) until cancelled.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import duckdb

_TYPES = {"INTEGER": "integer", "BIGINT": "bigint", "VARCHAR": "varchar", "DATE": "date", "DOUBLE": "double",
          "BOOLEAN": "boolean", "TIMESTAMP": "timestamp(6)"}


def _trino_type(duck_type: str) -> str:
    if duck_type.startswith("DECIMAL"):
        return duck_type.lower()
    return _TYPES.get(duck_type, "varchar")


def _signature(type_name: str) -> dict:
    """The column's typeSignature: raw type and numeric arguments (decimal(10,2) -> decimal, [10, 2])."""
    raw, _, rest = type_name.partition("(")
    arguments = [{"kind": "LONG", "value": int(a)} for a in rest.rstrip(")").split(",") if a.strip()]
    if raw == "varchar" and not arguments:  # unbounded varchar: Trino sends the maximum length
        arguments = [{"kind": "LONG", "value": 2147483647}]
    return {"rawType": raw, "arguments": arguments}


def _wire(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)  # dates, timestamps, decimals travel as strings


class FakeTrino:
    def __init__(self, setup_sql: list[str]) -> None:
        self.db = duckdb.connect()
        for statement in setup_sql:
            self.db.execute(statement)
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # method, path, headers
        self.cancelled: set[str] = set()
        self._results: dict[str, dict] = {}
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict | None = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                sql = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                fake.requests.append(("POST", self.path, dict(self.headers)))
                self._send(200, fake.submit(sql, self._base()))

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, dict(self.headers)))
                self._send(200, fake.poll(self.path.rsplit("/", 2)[-2], self._base()))

            def do_DELETE(self) -> None:
                fake.requests.append(("DELETE", self.path, dict(self.headers)))
                fake.cancelled.add(self.path.rsplit("/", 2)[-2])
                self._send(204)

            def _base(self) -> str:
                return f"http://127.0.0.1:{fake.port}"

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def submit(self, sql: str, base: str) -> dict:
        query_id = uuid.uuid4().hex
        with self._lock:
            if "slow_table" in sql:
                self._results[query_id] = {"slow": True}
            else:
                try:
                    cursor = self.db.cursor().execute(sql)
                    columns = [{"name": d[0], "type": _trino_type(str(d[1])), "typeSignature": _signature(_trino_type(str(d[1])))}
                               for d in cursor.description]
                    data = [[_wire(v) for v in row] for row in cursor.fetchall()]
                    self._results[query_id] = {"columns": columns, "data": data}
                except duckdb.Error as error:
                    self._results[query_id] = {"error": str(error).splitlines()[0]}
        return {"id": query_id, "infoUri": f"{base}/ui/{query_id}", "nextUri": f"{base}/v1/statement/executing/{query_id}/1",
                "stats": {"state": "QUEUED"}}

    def poll(self, query_id: str, base: str) -> dict:
        result = self._results[query_id]
        doc: dict[str, Any] = {"id": query_id, "infoUri": f"{base}/ui/{query_id}"}
        if query_id in self.cancelled or result.get("slow"):
            if query_id in self.cancelled:
                doc |= {"stats": {"state": "FAILED"}, "error": {"message": "Query was canceled", "errorCode": 3,
                                                               "errorName": "USER_CANCELED", "errorType": "USER_ERROR"}}
            else:
                doc |= {"stats": {"state": "RUNNING"}, "nextUri": f"{base}/v1/statement/executing/{query_id}/2"}
            return doc
        if "error" in result:
            return doc | {"stats": {"state": "FAILED"}, "error": {
                "message": result["error"], "errorCode": 46, "errorName": "TABLE_NOT_FOUND", "errorType": "USER_ERROR",
                "failureInfo": {"type": "io.trino.spi.TrinoException", "message": result["error"], "stack": []}}}
        return doc | {"columns": result["columns"], "data": result["data"], "stats": {"state": "FINISHED"}}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.db.close()
