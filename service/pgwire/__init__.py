"""The SQL API over the PostgreSQL wire protocol (docs/sql-api.md): `smq serve --pg-port PORT`.

`install(app, state)` starts the listener with the app (its lifespan) when SMQ_PG_PORT is set; the
translation of SQL into SMQs and the catalogs' contents are engine/sql_api's.
"""

from __future__ import annotations

from .server import PgServer, start_pg_server

__all__ = ["PgServer", "start_pg_server"]
