"""How the CLI prints an engine error: one `smq: ` prefix, also when the error is located at the SMQ itself."""

from __future__ import annotations

from engine.errors import EngineError


def error_line(err: EngineError) -> str:
    """`smq: <file:line: message>`; an error whose location is the SMQ argument reads `smq: <message>`, not `smq: smq: ...`."""
    return f"smq: {err.formatted().removeprefix('smq: ')}"
