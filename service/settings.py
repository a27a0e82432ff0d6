"""The service's configuration: environment variables prefixed `SMQ_`, overridden by `smq serve` flags.

One object, read once at start-up and passed to `create_app`; nothing else in the service reads the
environment, so a test builds a `Settings(...)` and gets a fully isolated app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from .routes.smq_schema import DEFAULT_MAX_LIMIT

PREVIEW_ROWS = 5  # the spec's five-row preview of convertSmqToSql


class Settings(BaseSettings):
    """Service settings; every field is also `SMQ_<FIELD>` in the environment."""

    model_config = SettingsConfigDict(env_prefix="SMQ_", extra="ignore")

    models_dir: Path = Field(Path("semantic_models"), description="folder of database layers")
    api_keys_file: Path | None = Field(None, description="YAML file of API keys (sha256 digests)")
    open_access: bool = Field(False, description="serve without keys (local demo only): every caller is an admin")
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    pg_port: int | None = Field(
        None, ge=0, le=65535, description="also serve the SQL API over the PostgreSQL protocol on this port "
                                          "(same host; 0 picks a free one); unset: no PostgreSQL listener")
    max_rows: int = Field(10_000, ge=1, description="most rows one query or execute call returns")
    query_timeout_s: float = Field(30.0, gt=0, description="per-query time budget, cancelled on the engine")
    max_body_bytes: int = Field(1_048_576, ge=1024, description="largest request body accepted (bytes); larger: 413")
    max_sql_chars: int = Field(100_000, ge=100, description="longest SQL text accepted (characters); longer: 413")
    max_limit: int = Field(
        DEFAULT_MAX_LIMIT, ge=1, le=2**63 - 1,
        description="largest `limit` a query (or its SMQ) may ask for; larger: 422 limit_too_large (not the engine's overflow)")
    compression: bool = Field(True, description="compress answers with br or gzip when the client accepts it")
    max_result_bytes: int = Field(
        16_777_216, ge=1024, description="largest JSON of the rows one query returns (bytes); larger: 422, page it")
    max_inflight_per_key: int = Field(
        8, ge=1, description="requests one API key may have in progress at once; more: 429 with Retry-After")
    allow_open_remote: bool = Field(False, description="let --open (no keys) listen on a non-loopback interface")
    reload_models: bool = Field(False, description="watch the layer files and reload changed layers")
    reload_interval_s: float = Field(1.0, gt=0, description="how often the watcher polls file mtimes")
    backend_retry_s: float = Field(5.0, ge=0, description="how long a failed backend connection is not retried")
    log_level: str = "info"
    log_format: Literal["text", "json"] = Field(
        "text", description="`json`: one JSON object per log line (with request_id), for log collectors")
    workers: int = Field(1, ge=1, description="server processes (each loads the layers and opens its own connections)")
    result_cache_ttl_s: float = Field(
        60.0, ge=0, description="how long a query's rows may be served again from the result cache (0: no cache); "
                                "database.yml `cache.ttl_seconds` overrides it per database")
    result_cache_max_entries: int = Field(256, ge=1, description="results the in-process cache keeps (least recently used goes)")
    result_cache_max_entry_bytes: int = Field(
        1_048_576, ge=1024, description="largest result (bytes of JSON) the cache keeps; larger ones are always run")
    cache_refresh_check_s: float = Field(
        10.0, gt=0, description="how often, at most, a database's `cache.refresh_key` query is run again")
    redis_url: str | None = Field(
        None, description="Redis shared by every worker and replica: result cache, paused /ask runs, per-key quotas "
                          "(redis://host:6379/0); unset: all of them in process")
    redis_prefix: str = Field("smq", min_length=1, description="prefix of every Redis key the service writes")
    quota_lease_s: float = Field(
        30.0, gt=0, description="with Redis: a quota slot of a process that stopped renewing it (crashed) frees after this")
    state_secret: str | None = Field(
        None, description="with Redis: key signing the paused /ask runs kept there (HMAC); set the same on every replica")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="browser origins allowed to call the API (CORS), comma-separated; * for any")

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip().rstrip("/") for part in value.split(",") if part.strip()]
        return value

    def to_env(self) -> dict[str, str]:
        """These settings as SMQ_* variables, for worker processes that build their own app."""
        out = {}
        for name, value in self.model_dump(mode="json").items():
            if isinstance(value, list):
                out[f"SMQ_{name.upper()}"] = ",".join(map(str, value))
            elif value is not None:
                out[f"SMQ_{name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
        return out
