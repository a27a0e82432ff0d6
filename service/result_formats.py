"""An answer's rows in the format a front end fetches: JSON, CSV, Arrow IPC stream or NDJSON.

The format is the `format` query parameter, else the best match of the `Accept` header, else JSON.
JSON keeps the one-shot body of `rows.RowsResponse`. CSV and Arrow carry what JSON has besides the rows
in `X-SMQ-*` headers (Arrow also in its schema metadata, with each column's type in the field metadata).
NDJSON is streamed: the first line is an object with everything but the rows (`columns`, `fields`, `sql`,
`row_count`, `truncated` ...), then one JSON array per row, so a client renders rows as they arrive and
the service never builds one large body.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from typing import Any, Literal

import pydantic_core
from fastapi import Response
from fastapi.responses import StreamingResponse

from .routes.rows import RowsResponse

Format = Literal["json", "csv", "arrow", "ndjson"]
MEDIA_TYPES: dict[Format, str] = {
    "json": "application/json",
    "csv": "text/csv",
    "arrow": "application/vnd.apache.arrow.stream",
    "ndjson": "application/x-ndjson",
}
_BY_MEDIA: dict[str, Format] = {media: fmt for fmt, media in MEDIA_TYPES.items()}
# what CSV/Arrow/NDJSON answers say in headers; browser scripts on other origins may read them (CORS)
EXPOSED_HEADERS = ("X-SMQ-Row-Count", "X-SMQ-Truncated", "X-SMQ-Total", "Content-Disposition")
NDJSON_CHUNK_ROWS = 1000  # rows per streamed piece: large enough to be cheap, small enough to flow

# the 200 answer's other media types, for the OpenAPI document (JSON comes from the response model)
OPENAPI_CONTENT: dict[int | str, dict[str, Any]] = {200: {
    "description": "the rows; `format` or `Accept` picks JSON (default), CSV, an Arrow IPC stream or NDJSON",
    "content": {
        "text/csv": {"schema": {"type": "string"}},
        "application/vnd.apache.arrow.stream": {"schema": {"type": "string", "format": "binary"}},
        "application/x-ndjson": {"schema": {"type": "string"},
                                 "description": "first line: the answer without its rows; then one JSON array per row"},
    },
}}


def negotiate(fmt: str | None, accept: str | None) -> Format:
    """The format asked for: `fmt` if given, else the Accept media type of highest quality we serve."""
    if fmt:
        return fmt  # type: ignore[return-value]  # validated by the route's Literal
    best: tuple[float, int, Format] | None = None
    for i, part in enumerate((accept or "").split(",")):
        media, *params = [p.strip() for p in part.split(";")]
        found = _BY_MEDIA.get(media.lower())
        if found is None:
            continue
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if q > 0 and (best is None or (q, -i) > (best[0], best[1])):
            best = (q, -i, found)
    return best[2] if best else "json"


def _headers(payload: dict[str, Any]) -> dict[str, str]:
    """What a JSON answer says besides its rows, for formats that carry only rows."""
    out = {"X-SMQ-Row-Count": str(payload["row_count"]), "X-SMQ-Truncated": str(payload["truncated"]).lower()}
    if payload.get("total") is not None:
        out["X-SMQ-Total"] = str(payload["total"])
    return out


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return value


# a text cell starting with one of these is a formula to a spreadsheet (=HYPERLINK(...), +cmd|..., @SUM(...));
# OWASP's rule: a leading ' makes it text, which spreadsheets show without the quote
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(value: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula, as text it shows (a leading `'`); others as they are."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_body(columns: list[str], rows: list[list[Any]], *, safe: bool = True) -> bytes:
    """RFC 4180 CSV with a header line; NULL is an empty field, lists and structs are JSON text. With `safe`
    (the default; `?csv_safe=false` turns it off for machine consumers) no text cell, header included, starts
    a formula (`neutralised`); numbers are numbers, so -5 stays -5."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if safe:
        writer.writerow([neutralised(c) for c in columns])
        writer.writerows([neutralised(v) if isinstance(v, str) else _csv_value(v) for v in row] for row in rows)
    else:
        writer.writerow(columns)
        writer.writerows([_csv_value(v) for v in row] for row in rows)
    return out.getvalue().encode("utf-8")


def _arrow_column(values: list[Any], field: dict[str, Any]) -> Any:
    """One column as an Arrow array: typed from its values, times parsed from their ISO text."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    try:
        array = pa.array(values)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):  # mixed or huge values: keep them as JSON text
        return pa.array([None if v is None else json.dumps(v) for v in values], pa.string())
    if field.get("type") == "time" and pa.types.is_string(array.type):
        for target in (pa.date32(), pa.timestamp("us"), pa.timestamp("us", tz="UTC")):
            try:
                return pc.cast(array, target)
            except pa.ArrowException:
                continue
    if pa.types.is_null(array.type) and field.get("type") == "number":
        return pa.array(values, pa.float64())
    return array


def arrow_body(payload: dict[str, Any]) -> bytes:
    """An Arrow IPC stream of one record batch; column types and the answer's facts in the metadata."""
    import pyarrow as pa

    columns, rows, fields = payload["columns"], payload["rows"], payload["fields"]
    arrays, schema_fields = [], []
    for i, name in enumerate(columns):
        array = _arrow_column([row[i] for row in rows], fields[i])
        meta = {f"smq.{k}": str(v) for k, v in fields[i].items() if k != "name" and v is not None}
        arrays.append(array)
        schema_fields.append(pa.field(name, array.type, metadata=meta))
    facts = {k: json.dumps(v) for k, v in payload.items() if k not in ("rows", "columns", "fields")}
    schema = pa.schema(schema_fields, metadata=facts)
    table = pa.Table.from_arrays(arrays, schema=schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def ndjson_lines(payload: dict[str, Any]) -> Iterator[bytes]:
    """The answer's head (everything but the rows) as one line, then its rows a chunk of lines at a time."""
    head = {k: v for k, v in payload.items() if k != "rows"}
    yield pydantic_core.to_json(head) + b"\n"
    rows = payload["rows"]
    for start in range(0, len(rows), NDJSON_CHUNK_ROWS):
        yield b"".join(pydantic_core.to_json(row) + b"\n" for row in rows[start:start + NDJSON_CHUNK_ROWS])


def respond(payload: dict[str, Any], fmt: Format, name: str = "result", *, csv_safe: bool = True) -> Response:
    """The answer in `fmt`; every format but JSON says its facts in headers too. `csv_safe`: see `csv_body`."""
    if fmt == "json":
        return RowsResponse(payload, headers={"Vary": "Accept"})
    headers = {"Vary": "Accept", **_headers(payload)}
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "result"  # a file name safe in a header
    if fmt == "ndjson":
        return StreamingResponse(ndjson_lines(payload), media_type=MEDIA_TYPES["ndjson"], headers=headers)
    if fmt == "csv":
        headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        return Response(csv_body(payload["columns"], payload["rows"], safe=csv_safe), media_type="text/csv; charset=utf-8; header=present",
                        headers=headers)
    headers["Content-Disposition"] = f'attachment; filename="{name}.arrows"'
    return Response(arrow_body(payload), media_type=MEDIA_TYPES["arrow"], headers=headers)
