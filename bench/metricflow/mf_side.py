"""MetricFlow's answers to queries.yml (run with the MetricFlow venv's python, inside the dbt project).

Usage: .bench-venvs/metricflow/bin/python bench/metricflow/mf_side.py PROJECT_DIR QUERIES OUT_JSON
One MetricFlowEngine for all queries (the CLI would start dbt once per query). Values are written as
JSON (dates and timestamps as ISO strings, decimals as floats); an error is kept as its message.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import sys
import time
from pathlib import Path

import yaml
from dbt_metricflow.cli.cli_configuration import CLIConfiguration
from metricflow.engine.metricflow_engine import MetricFlowQueryRequest


def _plain(value: object) -> object:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def _time(text: str | None) -> dt.datetime | None:
    """mf query's --start-time / --end-time (ISO 8601)."""
    return dt.datetime.fromisoformat(text) if text else None


def main(project: Path, queries: Path, out: Path) -> None:
    config = CLIConfiguration()
    started = time.monotonic()
    config.setup(dbt_profiles_path=project, dbt_project_path=project, configure_file_logging=False)
    engine = config.mf
    results: dict = {"_load_s": round(time.monotonic() - started, 2), "answers": {}}
    for query in yaml.safe_load(queries.read_text(encoding="utf-8"))["queries"]:
        q = query["mf"]
        if q.get("saved_query"):  # by name, as `mf query --saved-query NAME`
            request = MetricFlowQueryRequest.create_with_random_request_id(saved_query_name=q["saved_query"])
        else:
            request = MetricFlowQueryRequest.create_with_random_request_id(
                metric_names=q.get("metrics") or None, group_by_names=q.get("group_by") or None,
                where_constraints=q.get("where") or None, order_by_names=q.get("order_by") or None,
                limit=q.get("limit"), time_constraint_start=_time(q.get("start_time")),
                time_constraint_end=_time(q.get("end_time")))
        try:
            answer = engine.query(request)
            table = answer.result_df
            results["answers"][query["id"]] = {
                "columns": list(table.column_names),
                "rows": [[_plain(v) for v in row] for row in table.rows], "sql": answer.sql}
        except Exception as exc:  # noqa: BLE001 - every MetricFlow refusal is a verdict, not a crash
            results["answers"][query["id"]] = {"error": f"{type(exc).__name__}: {str(exc).strip()[:4000]}"}
    out.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve())
