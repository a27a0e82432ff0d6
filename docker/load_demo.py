"""Load the demo "shop" into PostgreSQL and give the service a read-only login.

Run once by docker-compose.yml's `demo-loader` (idempotent: tables are dropped and reloaded, grants
reapplied). Connects as the database owner through the libpq variables PGHOST, PGUSER, PGPASSWORD,
PGDATABASE; the service's login is SMQ_PG_USER (default smq_reader) with SMQ_PG_PASSWORD. That
login can read the demo schema and nothing else, and every transaction it starts is read-only:
the server's lock behind the executor's own read-only guard.
"""

from __future__ import annotations

import os
import sys
import time

import psycopg
from psycopg import sql

from smq_db.demo.build import load_into

SCHEMA = os.environ.get("SMQ_PG_SCHEMA", "shop")


def connect(attempts: int = 30) -> psycopg.Connection:
    """The server may still be starting even after its healthcheck passed once; retry for a while."""
    for attempt in range(attempts):
        try:
            return psycopg.connect(autocommit=True, connect_timeout=5)
        except psycopg.OperationalError as exc:
            if attempt == attempts - 1:
                raise SystemExit(f"cannot connect to PostgreSQL: {exc}") from None
            time.sleep(1)
    raise AssertionError("unreachable")


def main() -> int:
    reader = os.environ.get("SMQ_PG_USER", "smq_reader")
    password = os.environ.get("SMQ_PG_PASSWORD")
    if not password:
        print("SMQ_PG_PASSWORD is not set", file=sys.stderr)
        return 3
    with connect() as conn:
        load_into(conn, "postgres", schema=SCHEMA)
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [reader]).fetchone()
        verb = "ALTER" if exists else "CREATE"
        conn.execute(sql.SQL(verb + " ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(reader), sql.Literal(password)))
        database = conn.info.dbname
        for statement in (
            "REVOKE ALL ON DATABASE {db} FROM PUBLIC",
            "GRANT CONNECT ON DATABASE {db} TO {role}",
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            "GRANT USAGE ON SCHEMA {schema} TO {role}",
            "GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}",
            "ALTER ROLE {role} SET default_transaction_read_only = on",
            "ALTER ROLE {role} SET search_path = {schema}",
        ):
            conn.execute(sql.SQL(statement).format(db=sql.Identifier(database), role=sql.Identifier(reader),
                                                   schema=sql.Identifier(SCHEMA)))
    print(f"demo loaded into {database}.{SCHEMA}; read-only login {reader} ready")
    return 0


if __name__ == "__main__":
    sys.exit(main())
