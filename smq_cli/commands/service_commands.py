"""`smq serve` (the REST service) and `smq keys hash|new` (API keys for its keys file)."""

from __future__ import annotations

import argparse
import errno
import hashlib
import os
import sys
from pathlib import Path

from ..exit_codes import ExitCode

# the names this module has always used (kept while other changes to it land), bound to the one enum
EXIT_OK, EXIT_BAD_INPUT, EXIT_NOT_CONFIGURED = ExitCode.OK, ExitCode.BAD_INPUT, ExitCode.NOT_CONFIGURED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the REST service (FastAPI + uvicorn)",
                       description="Serve every layer under the models folder. Settings also come from SMQ_* "
                                   "environment variables; flags win.")
    p.add_argument("--host", help="interface to bind (default: $SMQ_HOST, then 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default: $SMQ_PORT, then 8000)")
    p.add_argument("--pg-port", type=int, metavar="PORT",
                   help="also serve the SQL API over the PostgreSQL protocol on this port, for psql, JDBC and BI "
                        "tools (default: $SMQ_PG_PORT, else none; docs/sql-api.md)")
    p.add_argument("--models-dir", type=Path, help="folder of database layers (default: $SMQ_MODELS_DIR, then ./semantic_models)")
    access = p.add_mutually_exclusive_group()
    access.add_argument("--api-keys", type=Path, metavar="FILE", help="YAML keys file (default: $SMQ_API_KEYS_FILE)")
    access.add_argument("--open", action="store_true", default=None,
                        help="serve without keys, every caller an admin: local demo only (or SMQ_OPEN_ACCESS=1); "
                             "refused on a non-loopback --host unless --allow-open-remote")
    p.add_argument("--allow-open-remote", action="store_true", default=None,
                   help="let --open listen on a non-loopback interface: anyone who can reach it is an admin "
                        "(or SMQ_ALLOW_OPEN_REMOTE=1)")
    p.add_argument("--reload-models", action="store_true", default=None,
                   help="watch the layer files (and the keys file) and reload what changes")
    p.add_argument("--build-rollups", action="store_true",
                   help="build the embedded rollups (rollups.yml) when due, checked every minute (docs/rollups.md)")
    p.add_argument("--max-rows", type=int, help="most rows per query (default: $SMQ_MAX_ROWS, then 10000)")
    p.add_argument("--query-timeout", type=float, metavar="SECONDS",
                   help="per-query timeout (default: $SMQ_QUERY_TIMEOUT_S, then 30)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="server processes (default: $SMQ_WORKERS, then 1); more than one watches the layer files")
    p.add_argument("--cors-origins", metavar="ORIGINS",
                   help="browser origins allowed to call the API, comma-separated, or * (default: $SMQ_CORS_ORIGINS, none)")
    p.add_argument("--log-level", choices=["critical", "error", "warning", "info", "debug"], help="log level (default: info)")
    p.add_argument("--log-format", choices=["text", "json"],
                   help="text lines, or one JSON object per line for log collectors (default: $SMQ_LOG_FORMAT, then text)")
    p.set_defaults(func=cmd_serve)

    keys = sub.add_parser("keys", help="API keys for the service's keys file")
    keys_sub = keys.add_subparsers(dest="keys_command", metavar="ACTION")
    h = keys_sub.add_parser("hash", help="print the sha256 digest of a key (what the keys file stores)")
    h.add_argument("key", help="the API key, or - to read it from stdin (keeps it out of shell history)")
    h.set_defaults(func=cmd_keys_hash)
    n = keys_sub.add_parser("new", help="make a random key; print it and its keys-file entry")
    n.add_argument("--name", required=True, help="a name for the key (shown in logs)")
    n.add_argument("--databases", nargs="+", default=["*"], help="database names, or * (default)")
    n.add_argument("--role", help="access role applied to the key")
    n.add_argument("--admin", action="store_true", help="may reload the layers")
    n.set_defaults(func=cmd_keys_new)
    keys.set_defaults(func=lambda args: (keys.print_help(sys.stderr), EXIT_BAD_INPUT)[1])


def is_loopback(host: str) -> bool:
    """Whether `host` only listens on this machine: localhost or a loopback address (127.0.0.0/8, ::1)."""
    import ipaddress

    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:  # another host name: it may resolve to any interface
        return False


def hash_key(key: str) -> str:
    """The hex SHA-256 digest of a key; the same function as service.auth.hash_key, without importing FastAPI."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def cmd_keys_hash(args: argparse.Namespace) -> int:
    key = sys.stdin.readline().rstrip("\r\n") if args.key == "-" else args.key
    if not key:
        print("smq: the key is empty", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(hash_key(key))
    return EXIT_OK


def cmd_keys_new(args: argparse.Namespace) -> int:
    import secrets

    import yaml

    key = "smq_" + secrets.token_urlsafe(32)
    entry = {"name": args.name, "sha256": hash_key(key), "databases": args.databases}
    if args.role:
        entry["role"] = args.role
    if args.admin:
        entry["admin"] = True
    print(f"key (give it to the client; it is not stored anywhere): {key}", file=sys.stderr)
    print("# add under `keys:` in the keys file", file=sys.stderr)
    print(yaml.safe_dump([entry], sort_keys=False).rstrip())
    return EXIT_OK


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be served (in use, not an address of this machine...), or None: checked before
    saying "serving", so a busy port is a clear message and exit code 2, not a traceback after a success line."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve host '{host}' ({exc.strerror})"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind(address)
        except PermissionError:
            return f"no permission to use port {port} (ports below 1024 need root); pick another with --port"
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is already in use (another smq serve?); stop it or pick another with --port"
            return f"{exc.strerror or exc}"
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    try:
        import uvicorn

        from service.app import create_app
        from service.errors import ServiceConfigError
        from service.settings import Settings
    except ImportError as exc:
        print(f"smq: the service needs its extra dependencies ({exc.name} is missing): "
              "pip install 'smq-semantic-layer[service]'", file=sys.stderr)
        return EXIT_NOT_CONFIGURED
    overrides = {
        "host": args.host, "port": args.port, "pg_port": args.pg_port, "models_dir": args.models_dir, "api_keys_file": args.api_keys,
        "open_access": args.open, "reload_models": args.reload_models, "max_rows": args.max_rows,
        "query_timeout_s": args.query_timeout, "log_level": args.log_level, "log_format": args.log_format,
        "workers": args.workers,
        "cors_origins": args.cors_origins, "allow_open_remote": args.allow_open_remote,
    }
    try:
        settings = Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        print(f"smq: invalid setting {'.'.join(map(str, first['loc']))}: {first['msg']}", file=sys.stderr)
        return EXIT_NOT_CONFIGURED
    if settings.open_access and settings.api_keys_file is None and not settings.allow_open_remote \
            and not is_loopback(settings.host):
        print(f"smq: refusing to serve without keys (--open) on {settings.host}: every caller that can reach it "
              "would be an admin. Bind a loopback address (--host 127.0.0.1), give --api-keys FILE, or pass "
              "--allow-open-remote (SMQ_ALLOW_OPEN_REMOTE=1) if that is really meant", file=sys.stderr)
        return EXIT_BAD_INPUT
    busy = port_problem(settings.host, settings.port)
    if busy:
        print(f"smq: cannot serve on http://{settings.host}:{settings.port}: {busy}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if settings.pg_port is not None:
        if settings.workers > 1:
            print("smq: --pg-port runs in one server process (a cancel request must reach the process running the "
                  "query); use --workers 1, or run a second `smq serve --pg-port` beside the HTTP workers",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        busy = port_problem(settings.host, settings.pg_port) if settings.pg_port else None
        if busy:
            print(f"smq: cannot serve the PostgreSQL protocol on {settings.host}:{settings.pg_port}: "
                  f"{busy.replace('--port', '--pg-port')}", file=sys.stderr)
            return EXIT_BAD_INPUT
    from service.request_log import configure_logging

    configure_logging(settings.log_level, settings.log_format)
    if settings.workers > 1 and not settings.reload_models:
        # POST /v1/reload reaches one worker only: every worker must notice file changes itself
        settings = settings.model_copy(update={"reload_models": True})
        print("smq: several workers: each one watches the layer files (--reload-models)", file=sys.stderr)
    try:
        app = create_app(settings)
    except ServiceConfigError as err:
        print(f"smq: cannot start the service: {err.formatted()}", file=sys.stderr)
        return EXIT_NOT_CONFIGURED
    serving = ", ".join(f"{e.name} ({e.status})" for e in app.state.smq.registry.entries()) or "no database"
    print(f"smq: serving {serving} on http://{settings.host}:{settings.port} (API docs: /docs)", file=sys.stderr)
    if settings.pg_port is not None:
        print(f"smq: SQL API over the PostgreSQL protocol on {settings.host}:{settings.pg_port} "
              f"(psql -h {settings.host} -p {settings.pg_port} -d <database>)", file=sys.stderr)
    if getattr(args, "build_rollups", False):
        import threading

        from smq_db.rollups import build_on_schedule

        stop = threading.Event()
        threading.Thread(target=build_on_schedule, args=(settings.models_dir, stop),
                         kwargs={"log": lambda text: print(text, file=sys.stderr)}, daemon=True, name="rollups").start()
        print("smq: building due rollups every minute (--build-rollups)", file=sys.stderr)
    if settings.workers == 1:
        # the service logs one line per request itself (with its id): not uvicorn's access log, nor its log config
        uvicorn.run(app, host=settings.host, port=settings.port, log_level=settings.log_level, log_config=None,
                    access_log=False)
        return EXIT_OK
    # the app above only proved the configuration; each worker builds its own from the environment
    app.state.smq.registry.build_demo_databases()
    app.state.smq.registry.close()
    os.environ.update(settings.to_env())
    print(f"smq: {settings.workers} worker processes", file=sys.stderr)
    uvicorn.run("service.app:create_worker_app", factory=True, workers=settings.workers, host=settings.host,
                port=settings.port, log_level=settings.log_level, log_config=None, access_log=False)
    return EXIT_OK
