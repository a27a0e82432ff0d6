"""The run spec: everything one `smq eval run` needs, as the CLI's flags give it (see harness.run_eval)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError

from ..config import AgentConfig


class EvalNotConfigured(EngineError):
    """Something the run needs is not set up: a model, or a backend's connection (exit code 3)."""

    code = "eval_not_configured"


@dataclass
class EvalSpec:
    """Everything a run needs; the CLI builds one from its flags."""

    tasks_file: Path
    select: str
    out_dir: Path
    workers: int = 4
    timeout_s: float = 600.0  # per instance, retries included
    models_dir: Path | None = None
    sqlite_dir: Path | None = None
    oracle_sql_dir: Path | None = None
    snowflake_connection: dict[str, Any] | None = None  # see connections.read_connection_file
    bigquery_connection: dict[str, Any] | None = None
    documents_dir: Path | None = None  # None: <task file folder>/documents when it exists
    retries: int = 2  # whole-instance retries after the loop's own retries ran out on a 429/5xx
    retry_base_s: float = 30.0
    retry_max_s: float = 300.0
    overwrite: bool = False  # run finished instances again instead of skipping them
    max_rows: int = 100_000  # rows kept from the final SQL (the CSV); Spider 2.0 gold has up to tens of thousands
    agent_config: AgentConfig | None = None  # None: AgentConfig.from_env()
    timeout_grace_s: float | None = None  # extra time before an instance is abandoned; None: 10% of timeout_s, at most 30 s

    @property
    def mode(self) -> str:
        return "oracle" if self.oracle_sql_dir is not None else "agent"

    @property
    def hard_timeout_s(self) -> float:
        grace = self.timeout_grace_s if self.timeout_grace_s is not None else min(30.0, self.timeout_s * 0.1)
        return self.timeout_s + grace
