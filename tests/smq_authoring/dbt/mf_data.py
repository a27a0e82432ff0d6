"""MetricFlow's own test data (../shared/data/metricflow/simple_model_data) loaded into a DuckDB file.

Types as the data README says: STRING→TEXT, TIME→TIMESTAMP, INT→BIGINT, FLOAT→DOUBLE, BOOLEAN→BOOLEAN.
"""

from __future__ import annotations

import csv
import gzip
import tempfile
from pathlib import Path

import duckdb
import yaml

from tests.conftest import SHARED

MF = SHARED / "data" / "metricflow"
TYPES = {"STRING": "TEXT", "TIME": "TIMESTAMP", "INT": "BIGINT", "FLOAT": "DOUBLE", "BOOLEAN": "BOOLEAN"}


def build_mf_duckdb(path: Path) -> Path:
    """Every table snapshot (and the day time spine) as a table of schema main."""
    conn = duckdb.connect(str(path))
    try:
        for file in sorted((MF / "simple_model_data").iterdir()):
            text = gzip.decompress(file.read_bytes()).decode() if file.suffix == ".gz" else file.read_text(encoding="utf-8")
            snapshot = yaml.safe_load(text)["table_snapshot"]
            columns = snapshot["column_definitions"]
            ddl = ", ".join(f'"{c["name"]}" {TYPES[c["type"]]}' for c in columns)
            conn.execute(f'CREATE TABLE "{snapshot["table_name"]}" ({ddl})')
            rows = snapshot.get("rows") or []
            if rows:  # one COPY, not a statement per row (the time spine has 15,000 rows)
                with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", encoding="utf-8") as out:
                    csv.writer(out).writerows([["\\N" if v is None else v for v in row] for row in rows])
                    out.flush()
                    conn.execute(f"COPY \"{snapshot['table_name']}\" FROM '{out.name}' (HEADER false, NULLSTR '\\N')")
    finally:
        conn.close()
    return path
