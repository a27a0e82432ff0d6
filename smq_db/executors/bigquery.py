"""BigQuery executor: google-cloud-bigquery, imported lazily (an optional extra).

Read-only twice: the guard, then a free dry run whose ``statement_type`` BigQuery itself reports
must be SELECT before the real job starts. ``maximum_bytes_billed`` caps cost per query. Timeout:
the job carries ``job_timeout_ms`` (BigQuery stops it server-side), and when waiting for the
result exceeds the timeout the job is cancelled explicitly. Only max_rows + 1 rows are fetched.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..readonly import ensure_read_only
from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    Executor,
    QueryResult,
    check_limits,
    fetch_rows,
    import_driver,
    iterator_fetchmany,
    make_result,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout, ReadOnlyViolation
from .settings import file_path, integer

PIP_PACKAGE = "google-cloud-bigquery"


class BigQueryExecutor:
    backend = "bigquery"

    def __init__(
        self,
        *,
        project: str | None = None,
        location: str | None = None,
        credentials_path: str | Path | None = None,
        maximum_bytes_billed: int | None = None,
        dialect: str = "bigquery",
        client: Any = None,
    ) -> None:
        self._bq = import_driver("google.cloud.bigquery", PIP_PACKAGE)
        self._api_errors = import_driver("google.api_core.exceptions", PIP_PACKAGE)
        self.dialect = dialect
        self.location = location
        self.maximum_bytes_billed = int(maximum_bytes_billed) if maximum_bytes_billed else None
        self._client = client if client is not None else self._make_client(project, location, credentials_path)

    def _make_client(self, project: str | None, location: str | None, credentials_path: str | Path | None) -> Any:
        credentials = None
        try:
            if credentials_path:
                service_account = import_driver("google.oauth2.service_account", PIP_PACKAGE)
                credentials = service_account.Credentials.from_service_account_file(str(credentials_path))
                project = project or credentials.project_id
            return self._bq.Client(project=project, credentials=credentials, location=location)
        except Exception as error:  # missing/invalid key file, no default credentials
            raise BackendUnavailable(f"cannot create a BigQuery client: {error}") from None

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        started = time.perf_counter()
        self._verify_select(sql, timeout_s)
        config = self._bq.QueryJobConfig(use_legacy_sql=False, maximum_bytes_billed=self.maximum_bytes_billed)
        config.job_timeout_ms = max(1, int(timeout_s * 1000))
        job = None
        try:
            job = self._client.query(sql, job_config=config, location=self.location, job_id_prefix="smq_", timeout=timeout_s)
            rows = job.result(timeout=max(0.001, timeout_s - (time.perf_counter() - started)), max_results=max_rows + 1)
            columns = [field.name for field in rows.schema]
            types = [field.field_type for field in rows.schema]  # STRING, INT64, NUMERIC, TIMESTAMP ...
            values = fetch_rows(iterator_fetchmany(list(row.values()) for row in rows), max_rows)
        except concurrent.futures.TimeoutError:
            self._cancel(job)
            raise QueryTimeout(timeout_message(timeout_s)) from None
        except self._api_errors.GoogleAPICallError as error:
            raise self._translate(error, timeout_s) from None
        return make_result(columns, values, max_rows, started, types)

    def _verify_select(self, sql: str, timeout_s: float) -> None:
        """The second lock: BigQuery's own parse of the statement, without running it (free)."""
        config = self._bq.QueryJobConfig(dry_run=True, use_query_cache=False, use_legacy_sql=False)
        try:
            dry = self._client.query(sql, job_config=config, location=self.location, timeout=timeout_s)
        except self._api_errors.GoogleAPICallError as error:
            raise self._translate(error, timeout_s) from None
        if (dry.statement_type or "").upper() != "SELECT":
            raise ReadOnlyViolation(f"BigQuery reports the statement type {dry.statement_type}; only SELECT queries are allowed")

    def _translate(self, error: Any, timeout_s: float) -> Exception:
        details = [e for e in getattr(error, "errors", None) or [] if isinstance(e, dict)]
        # the first error's own message; error.message adds the URL and job id around it
        message = (details[0].get("message") if details else None) or getattr(error, "message", None) or str(error)
        reasons = {e.get("reason") for e in details}
        if "timeout" in reasons or "stopped" in reasons or "timed out" in message.lower():
            return QueryTimeout(timeout_message(timeout_s))
        if isinstance(error, (self._api_errors.Unauthorized, self._api_errors.ServiceUnavailable)):
            return BackendUnavailable(f"BigQuery is unavailable: {message}")
        return ExecutionError(message)

    def _cancel(self, job: Any) -> None:
        if job is None:
            return
        with contextlib.suppress(Exception):  # the job may have finished meanwhile; it stops either way
            job.cancel(timeout=10)

    def close(self) -> None:
        self._client.close()


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    credentials = file_path(settings, "credentials_path", base_dir) if settings.get("credentials_path") else None
    billed = settings.get("maximum_bytes_billed")
    return BigQueryExecutor(project=settings.get("project"), location=settings.get("location"), credentials_path=credentials,
                            maximum_bytes_billed=integer(settings, "maximum_bytes_billed", 0) if billed else None, dialect=dialect)
