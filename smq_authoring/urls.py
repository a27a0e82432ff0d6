"""Database URLs for `smq init --from`: what to connect to, and what database.yml should say.

    sqlite:///relative/file.db      sqlite:////absolute/file.db
    duckdb:///file.duckdb
    postgresql://user[:password]@host[:port]/database[?schema=name]     (also postgres://)
    mysql://user[:password]@host[:port]/database                        (also mariadb://)

A password in the URL is used to connect but never written: database.yml gets `${VAR}` instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from engine.dialects import dialect as dialect_of, introspectable

# URL scheme -> the engine's name, for every engine `smq init` can read (engine/dialects: each engine's url_schemes)
SCHEMES = {scheme: d.name for d in introspectable() for scheme in d.url_schemes}


class UrlError(ValueError):
    """A URL that names no database we can introspect."""


@dataclass(frozen=True)
class ConnectionSpec:
    backend: str  # sqlite | duckdb | postgres | mysql (also the sqlglot dialect)
    path: Path | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = None
    database: str | None = None
    schema: str | None = None

    @property
    def dialect(self) -> str:
        return self.backend

    def describe(self) -> str:
        if self.path is not None:
            return f"{self.backend} file {self.path}"
        where = f"{self.host}:{self.port}/{self.database}"
        return f"{self.backend} database {where}" + (f" (schema {self.schema})" if self.schema else "")

    def password_variable(self, db_name: str) -> str:
        return f"SMQ_{re.sub(r'[^A-Za-z0-9]', '_', db_name).upper()}_PASSWORD"

    def yaml_connection(self, layer_dir: Path, db_name: str) -> dict[str, Any]:
        """The `connection:` block, without secrets. A file path is written relative to the layer folder
        when both are inside the working directory (a project checked out elsewhere still works),
        absolute otherwise."""
        if self.path is not None:
            path, here = self.path.resolve(), Path.cwd().resolve()
            shown = str(path)
            if path.is_relative_to(here) and layer_dir.resolve().is_relative_to(here):
                shown = os.path.relpath(path, layer_dir.resolve())
            return {"backend": self.backend, "path": shown}
        out: dict[str, Any] = {"backend": self.backend, "host": self.host, "port": self.port}
        if self.user:
            out["user"] = self.user
        if self.password:
            out["password"] = "${" + self.password_variable(db_name) + "}"
        out["database"] = self.database
        if self.schema and dialect_of(self.backend).schema_setting == "schema":
            out["schema"] = self.schema
        return out

    def executor_connection(self) -> dict[str, Any]:
        """The same block with the real password and an absolute path, for running checks now."""
        if self.path is not None:
            return {"backend": self.backend, "path": str(self.path.resolve())}
        out = {"backend": self.backend, "host": self.host, "port": self.port, "user": self.user, "database": self.database}
        if self.password:
            out["password"] = self.password
        if self.schema and dialect_of(self.backend).schema_setting == "schema":
            out["schema"] = self.schema
        return {k: v for k, v in out.items() if v is not None}


def parse_url(url: str) -> ConnectionSpec:
    """Parse a database URL; raises UrlError saying what is wrong and what is expected."""
    scheme, sep, rest = url.partition("://")
    backend = SCHEMES.get(scheme.lower()) if sep else None
    if backend is None:
        raise UrlError(f"unsupported database URL '{url}': expected sqlite:///file.db, duckdb:///file.duckdb, "
                       "postgresql://user@host:port/db?schema=name or mysql://user@host:port/db")
    engine = dialect_of(backend)
    if engine.file_based:
        if not rest.startswith("/") or len(rest) < 2:
            raise UrlError(f"'{url}': write {scheme}:///relative/path or {scheme}:////absolute/path")
        raw_path, _, query_text = rest[1:].partition("?")
        path = Path(unquote(raw_path)).expanduser()
        if not path.is_file():
            raise UrlError(f"'{url}': no such file: {path}")
        schemas = parse_qs(query_text).get("schema") if engine.has_schemas else None
        schema = schemas[0] if schemas else None
        return ConnectionSpec(backend, path=path, schema=schema)
    parsed = urlparse(url)
    database = unquote(parsed.path.lstrip("/"))
    if not database:
        raise UrlError(f"'{url}': the URL names no database (…/{'dbname'})")
    query = parse_qs(parsed.query)
    schemas = query.get("schema") or query.get("currentSchema")
    schema = schemas[0] if schemas else None
    try:
        port = parsed.port
    except ValueError:
        raise UrlError(f"'{url}': the port is not a number") from None
    return ConnectionSpec(
        backend,
        host=parsed.hostname or "127.0.0.1",
        port=port or engine.default_port,
        user=unquote(parsed.username) if parsed.username else None,
        password=unquote(parsed.password) if parsed.password else None,
        database=database,
        schema=(schema or engine.schema_default) if engine.schema_setting == "schema" else None,
    )
