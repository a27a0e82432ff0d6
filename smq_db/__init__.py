"""Talking to databases: executors per backend, the read-only guard every executor runs first,
and the embedded demo database. Imports `engine` only; never `agent`, `service` or the CLI."""
