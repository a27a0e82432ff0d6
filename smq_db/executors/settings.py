"""Reading a database.yml `connection:` mapping: the helpers every executor's `from_settings` shares."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.errors import Location

from .errors import ConfigError

_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def file_path(settings: Mapping[str, Any], key: str, base_dir: Path) -> Path:
    """A file named by the connection, relative to the layer's folder unless absolute."""
    raw = settings.get(key)
    if not raw:
        raise ConfigError(f"connection.{key} is required for the {settings['backend']} backend",
                          location=Location(field=f"connection.{key}"))
    path = Path(str(raw)).expanduser()
    return path if path.is_absolute() else (base_dir / path)


def integer(settings: Mapping[str, Any], key: str, default: int) -> int:
    raw = settings.get(key, default)
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"connection.{key} must be an integer, got {raw!r}", location=Location(field=f"connection.{key}")) from None


def require(settings: Mapping[str, Any], key: str) -> None:
    if settings.get(key) in (None, ""):
        raise ConfigError(f"connection.{key} is required for the {settings['backend']} backend",
                          location=Location(field=f"connection.{key}"))


def expand_env(value: Any, path: str = "connection") -> Any:
    """Replace ``${NAME}`` in every string (nested too); a missing variable is an error naming it."""
    if isinstance(value, str):
        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise ConfigError(f"environment variable {name} is not set (used in {path})", location=Location(field=path))
            return os.environ[name]

        return _ENV_VAR.sub(substitute, value)
    if isinstance(value, Mapping):
        return {k: expand_env(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value
