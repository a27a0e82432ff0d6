"""Where each instance's database is: a connection mapping per backend, and a cache of executors.

An instance runs on the backend its id names (`smq_db.executors.route_instance`: local* -> sqlite,
bq*/ga* -> bigquery, sf* -> snowflake). The connection comes from, first match wins:

| backend | from |
|---|---|
| sqlite | `<sqlite-dir>/<db>.sqlite` (Spider 2.0's own layout of its local databases) |
| snowflake | `--snowflake-connection FILE` (YAML or JSON: the keys of a layer's `connection:` block); the session database is the task's `db` unless the file names one |
| bigquery | `--bigquery-connection FILE`, or `--bigquery-project P` with Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`) |
| any | the `connection:` of the database's semantic layer, when its backend is the routed one |

Executors are thread-safe (each holds a pool), so one per database is shared by all workers.
`${ENV_VAR}` in a connection file is expanded by the executor factory: secrets stay out of files.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine import Layer
from engine.dialects import Engine
from smq_db.executors import Executor, create_executor
from smq_db.open import open_for_layer

from .tasks import EvalInputError, Task

# the engines Spider 2.0 tasks run on, each reached by its own command-line option below
SQLITE, SNOWFLAKE, BIGQUERY = Engine.SQLITE.value, Engine.SNOWFLAKE.value, Engine.BIGQUERY.value

HOW_TO = {
    SQLITE: "pass --sqlite-dir DIR (a folder of <db>.sqlite files, as Spider 2.0 ships them)",
    SNOWFLAKE: "pass --snowflake-connection FILE.yml (account, user, password: ${SNOWFLAKE_PASSWORD}, warehouse, role) "
               "or set SMQ_SNOWFLAKE_CONNECTION",
    BIGQUERY: "pass --bigquery-connection FILE.yml or --bigquery-project PROJECT (credentials from "
              "GOOGLE_APPLICATION_CREDENTIALS), or set SMQ_BIGQUERY_CONNECTION",
}


def read_connection_file(path: str | Path, backend: str) -> dict[str, Any]:
    """A connection mapping from YAML or JSON: bare keys, or a `connection:` block as in database.yml."""
    path = Path(path).expanduser()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalInputError(f"{path}: {backend} connection file not found") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise EvalInputError(f"{path}: cannot read the {backend} connection file ({exc})") from None
    if isinstance(data, Mapping) and isinstance(data.get("connection"), Mapping):
        data = data["connection"]
    if not isinstance(data, Mapping):
        raise EvalInputError(f"{path}: the {backend} connection file must hold a mapping of connection settings")
    settings = {str(k): v for k, v in data.items()}
    named = str(settings.get("backend") or backend).lower()
    if named != backend:
        raise EvalInputError(f"{path}: names backend '{named}' but is given as the {backend} connection")
    return {**settings, "backend": backend, "_base_dir": str(path.parent.resolve())}


@dataclass(frozen=True)
class Target:
    """The database one instance runs on: a connection mapping, the folder its paths are relative to, a dialect."""

    backend: str
    connection: dict[str, Any]
    base_dir: Path
    dialect: str
    layer: Layer | None = field(default=None, compare=False)  # the layer's own connection: opened as the service does

    def key(self) -> str:
        return json.dumps([self.backend, self.connection, str(self.base_dir), self.dialect], sort_keys=True, default=str)


@dataclass
class Connections:
    """Resolves an instance to a Target and hands out one shared executor per Target."""

    sqlite_dir: Path | None = None
    snowflake: dict[str, Any] | None = None
    bigquery: dict[str, Any] | None = None
    pool_size: int = 4
    _executors: dict[str, Executor] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def configured(self, backend: str, layer: Layer | None) -> bool:
        """Whether some source names a connection for this backend (checked before a run starts)."""
        if backend == SQLITE and self.sqlite_dir is not None:
            return True
        if backend == SNOWFLAKE and self.snowflake is not None:
            return True
        if backend == BIGQUERY and (self.bigquery is not None or os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")):
            return True
        return layer is not None and _layer_backend(layer) == backend

    def target(self, task: Task, backend: str, layer: Layer | None) -> Target:
        """The instance's database; raises EvalInputError (an instance error) when nothing names one."""
        dialect = layer.dialect if layer is not None else backend
        if backend == SQLITE and self.sqlite_dir is not None:
            path = self.sqlite_dir / f"{task.db}.sqlite"
            if not path.is_file():
                raise EvalInputError(f"no SQLite file for database '{task.db}': expected {path}")
            return Target(SQLITE, {"backend": SQLITE, "path": str(path.resolve()), "pool_size": self.pool_size},
                          self.sqlite_dir, dialect)
        if backend == SNOWFLAKE and self.snowflake is not None:
            settings = dict(self.snowflake)
            base = Path(settings.pop("_base_dir", "."))
            settings["database"] = settings.get("database") or task.db
            settings.setdefault("pool_size", self.pool_size)
            return Target(SNOWFLAKE, settings, base, dialect)
        if backend == BIGQUERY and (self.bigquery is not None or os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")):
            settings = dict(self.bigquery or {"backend": BIGQUERY})
            base = Path(settings.pop("_base_dir", "."))
            return Target(BIGQUERY, settings, base, dialect)
        if layer is not None and _layer_backend(layer) == backend:
            return Target(backend, dict(layer.semantic.connection), Path(layer.semantic.directory), dialect, layer)
        raise EvalInputError(f"no {backend} connection for {task.instance_id}: {HOW_TO[backend]}")

    def executor(self, target: Target) -> Executor:
        """The shared executor of a target, created on first use (BackendUnavailable/ConfigError propagate)."""
        key = target.key()
        with self._lock:
            found = self._executors.get(key)
            if found is None:
                if target.layer is not None:  # builds the demo database first, like the service
                    found = open_for_layer(target.layer, connection=target.connection)
                else:
                    found = create_executor(target.connection, base_dir=target.base_dir, dialect=target.dialect)
                self._executors[key] = found
            return found

    def close(self) -> None:
        with self._lock:
            executors, self._executors = list(self._executors.values()), {}
        for ex in executors:
            try:
                ex.close()
            except Exception:  # noqa: BLE001 - closing is best effort at the end of a run
                pass


def _layer_backend(layer: Layer) -> str | None:
    raw = str((layer.semantic.connection or {}).get("backend") or "").lower()
    return {"sqlite3": SQLITE}.get(raw, raw) or None
