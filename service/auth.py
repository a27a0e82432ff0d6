"""API keys (docs/security.md; docs/semantic-layer.md, access roles): who may call, which databases they may use, and as which role.

The keys file holds only SHA-256 digests of the keys, never the keys themselves:

    keys:
      - name: bi-dashboard          # shown in logs, never the key
        sha256: 9f86d081...         # `smq keys hash KEY`
        databases: [shop]           # names, or "*" for every database
        role: de_analyst            # optional: the access role applied on every path
        admin: false                # optional: may POST /v1/reload

A presented key is hashed and compared with every digest by `hmac.compare_digest`, so timing
tells nothing about how close a guess was.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.errors import LayerError, Location
from engine.layer.yamlpos import load_yaml

from .errors import ServiceConfigError, Unauthorized

ALL = "*"


def hash_key(key: str) -> str:
    """The hex SHA-256 digest stored in the keys file for `key`."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A fresh random API key (256 bits, URL-safe)."""
    return "smq_" + secrets.token_urlsafe(32)


class KeyEntry(BaseModel):
    """One entry of the keys file, validated strictly: a typo must not silently widen access."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    sha256: str
    databases: list[str] = Field(min_length=1)
    role: str | None = None
    admin: bool = False

    @field_validator("sha256")
    @classmethod
    def _hex_digest(cls, value: str) -> str:
        value = value.strip().lower()
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise ValueError("must be the 64-character hex SHA-256 digest of the key (smq keys hash KEY)")
        return value


@dataclass(frozen=True)
class Principal:
    """The authenticated caller: what it may use and as which role."""

    name: str
    databases: frozenset[str] | None  # None: every database
    role: str | None
    admin: bool

    def grants(self, database: str) -> bool:
        """Whether the key names this database (the role check comes on top, per database)."""
        return self.databases is None or database in self.databases


OPEN_PRINCIPAL = Principal(name="open-access", databases=None, role=None, admin=True)


class KeyStore:
    """The loaded keys file; immutable, replaced whole on reload."""

    def __init__(self, entries: list[KeyEntry], source: Path | None = None) -> None:
        self.entries = entries
        self.source = source

    @classmethod
    def load(cls, path: Path) -> KeyStore:
        """Read and validate a keys file; any problem is a ServiceConfigError naming the entry."""
        try:  # the layer loader's YAML: positioned, size- and alias-limited (a keys file is a config file too)
            data: Any = load_yaml(path, str(path))
        except LayerError as exc:
            if exc.code == "file_unreadable":
                raise ServiceConfigError(f"cannot read the API keys file {path}: {exc.message.removeprefix('cannot read file: ')}") from None
            raise ServiceConfigError(f"the API keys file is not valid YAML: {exc.message.removeprefix('YAML syntax error: ')}",
                                     location=exc.location) from None
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
            raise ServiceConfigError("the API keys file must hold a `keys:` list", location=Location(str(path), 1, 1))
        entries, names, digests = [], set(), set()
        for i, raw in enumerate(data["keys"]):
            try:
                entry = KeyEntry.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(p) for p in first["loc"])
                raise ServiceConfigError(f"keys[{i}].{field}: {first['msg']}",
                                         location=Location(str(path), field=f"keys[{i}].{field}")) from None
            if entry.name in names or entry.sha256 in digests:
                what = "name" if entry.name in names else "digest"
                raise ServiceConfigError(f"keys[{i}]: duplicate {what} ('{entry.name}')",
                                         location=Location(str(path), field=f"keys[{i}]"))
            names.add(entry.name)
            digests.add(entry.sha256)
            entries.append(entry)
        return cls(entries, path)

    def authenticate(self, authorization: str | None) -> Principal:
        """The principal of an `Authorization: Bearer <key>` header, or Unauthorized."""
        if not authorization:
            raise Unauthorized("missing API key: send `Authorization: Bearer <key>`")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("malformed Authorization header: expected `Bearer <key>`")
        digest = hash_key(token)
        match: KeyEntry | None = None
        for entry in self.entries:  # no early exit: every digest is compared
            if hmac.compare_digest(digest, entry.sha256):
                match = entry
        if match is None:
            raise Unauthorized("invalid API key")
        databases = None if ALL in match.databases else frozenset(match.databases)
        return Principal(name=match.name, databases=databases, role=match.role, admin=match.admin)
