"""The compiled-SQL cache of `smq compile` and `smq query` across processes (dbt's partial parsing, for one query).

A cold `smq query` imports sqlglot and the engine and loads the layer, to print or run a text that is the same
every time for the same inputs; that start-up is most of its CPU. So the command, run as its own process (the
`smq` console script; never a caller of `main(argv)`), keeps each compiled text in a file keyed by everything it
was made from, and a repeat run on the same inputs reads it instead: no sqlglot, no engine, no YAML.

The key is SHA-256 over: every `*.yml`/`*.yaml` file under the models folder (its path and bytes; the loader reads
nothing else, and the entry is written only when every file the layer read is among them), the folder's own path,
the request (command, database, the SMQ as canonical JSON, role, dialect, rollups on or off, --start/--end-time),
the installed versions of smq and sqlglot, the Python version, and the bytes of every source file of engine/,
smq_db/ and smq_cli/ (an edited checkout never serves what the old code compiled). A layer with rollups is never
cached (which rollup answers depends on the rollup store's state, not on files).

Entries live in `$XDG_CACHE_HOME/smq/compiled` (else `~/.cache/smq/compiled`), a folder of mode 0700 that must be
the user's own and writable by nobody else; each is JSON (never pickle), written to a temporary file of mode 0600
and renamed into place. An entry that is unreadable, not JSON, of another format or key, or not the user's own is
ignored, and the run compiles and writes it anew. `--no-cache`, or `SMQ_NO_CACHE=1`, switch it off. Why a cached
text is trusted, and what a query's entry holds: docs/security.md ("The CLI's compiled-SQL cache").
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.digests import sha256

FORMAT = 1
OFF = "SMQ_NO_CACHE"  # set to 1 (anything but "" or "0"): never read or write the cache
MAX_ENTRIES = 512  # written entries kept, the oldest removed past it
MAX_ENTRY_BYTES = 8 * 1024 * 1024
PACKAGES = ("engine", "smq_db", "smq_cli")  # the code a compiled text comes from (siblings, as installed)
DISTRIBUTIONS = ("smq_semantic_layer-", "sqlglot-")  # their installed versions, by their .dist-info folder's name
LAYER_SUFFIXES = (".yml", ".yaml")

_code: str | None = None


class Lookup:
    """One command's use of the cache: `text` is the cached text (a hit) or None; after a miss the command compiles
    and calls `keep`, which writes the entry when the layer may be cached. Off (`enabled`): always a miss, no write."""

    def __init__(self, kind: str, args: Any, smq: Any, *, dialect: str | None = None, start: str | None = None,
                 end: str | None = None) -> None:
        self.kind, self.root = kind, models_root(getattr(args, "models_dir", None))
        self.request = {"db": args.db, "smq": smq, "dialect": dialect, "role": args.role, "rollups": args.rollups,
                        "start": start, "end": end}
        self.name = key(kind, self.root, self.request) if enabled(args) else None
        self.entry = load(self.name, kind) if self.name is not None else None
        self.text: str | None = self.entry["text"] if self.entry is not None else None

    def keep(self, layer: Any, text: str, **more: Any) -> None:
        """`text`, compiled by `layer` for this request, is the answer; cached unless the layer declares rollups,
        read a file the key does not cover, or its files changed while it compiled."""
        self.text = text
        if self.name is None or self.entry is not None or layer.rollups:
            return
        read = {os.path.realpath(f) for f in layer.semantic.files}
        if not read <= layer_files(self.root) or key(self.kind, self.root, self.request) != self.name:
            return
        store(self.name, self.kind, text, **more)


def enabled(args: Any) -> bool:
    """Whether this run reads and writes the cache: the `smq` process itself, neither --no-cache nor SMQ_NO_CACHE."""
    return bool(getattr(args, "one_shot", False)) and getattr(args, "cache", True) and os.environ.get(OFF, "") in ("", "0")


def models_root(models_dir: Path | None) -> Path:
    """The models folder a command reads: --models-dir, else $SMQ_MODELS_DIR, else ./semantic_models, as
    `engine.default_models_dir` (tests/smq_cli/test_sqlcache.py holds them equal) without importing the engine."""
    return models_dir if models_dir is not None else Path(os.environ.get("SMQ_MODELS_DIR") or "semantic_models")


def directory() -> Path:
    """`$XDG_CACHE_HOME/smq/compiled`, else `~/.cache/smq/compiled` (a relative XDG_CACHE_HOME is ignored, per the spec)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "smq" / "compiled"


def key(kind: str, root: Path, request: Mapping[str, Any]) -> str | None:
    """The entry's name for a request on the layers under `root`; None when a file cannot be read."""
    digest = sha256()
    try:
        for part in (f"smq compiled-SQL cache {FORMAT}", code_fingerprint(), str(root.resolve()), *_layer_parts(root),
                     json.dumps({"kind": kind, **request}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)):
            data = part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
    except (OSError, TypeError, ValueError):
        return None
    return digest.hexdigest()


def layer_files(root: Path) -> set[str]:
    """The files the key covers, resolved: to check that a loaded layer read no other."""
    return {os.path.realpath(path) for path, _ in _walk(root)}


def load(name: str, kind: str) -> dict[str, Any] | None:
    """The entry `name` if it is sound: the user's own regular file, JSON of this format, key and kind, its text a
    string; else None (a miss: the run compiles and writes it again)."""
    folder = _folder(create=False)
    if folder is None:
        return None
    try:
        fd = os.open(folder / f"{name}.json", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077 or info.st_size > MAX_ENTRY_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            entry = json.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(fd)
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != name \
            or entry.get("kind") != kind or not isinstance(entry.get("text"), str):
        return None
    return entry


def store(name: str, kind: str, text: str, **more: Any) -> None:
    """Write an entry atomically (a 0600 temporary file renamed into place); a cache that cannot be written is
    skipped without a word: it only saves time."""
    folder = _folder(create=True)
    if folder is None:
        return
    body = json.dumps({"format": FORMAT, "key": name, "kind": kind, "text": text, **more}, ensure_ascii=False)
    import tempfile  # on a miss only: it imports random, shutil and more

    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(body)
            os.replace(temp, folder / f"{name}.json")
        except BaseException:
            os.unlink(temp)
            raise
        _prune(folder)
    except OSError:
        return


def code_fingerprint() -> str:
    """SHA-256 of the sources of engine/, smq_db/ and smq_cli/ (paths and bytes), the installed smq and sqlglot
    versions and Python's: once per process."""
    global _code
    if _code is None:
        digest = sha256()
        here = Path(__file__).resolve().parents[1]
        for package in PACKAGES:
            for path in sorted((here / package).rglob("*.py")):
                data = path.read_bytes()
                name = str(path.relative_to(here)).encode()
                digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
        digest.update("\0".join([sys.version, *_distributions()]).encode())
        _code = digest.hexdigest()
    return _code


def _distributions() -> list[str]:
    """The .dist-info folder names of smq and sqlglot on sys.path (their versions), without importlib.metadata
    (tens of milliseconds to import)."""
    found: list[str] = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found += sorted(n for n in names if n.endswith(".dist-info") and n.startswith(DISTRIBUTIONS))
    return found


def _walk(root: Path) -> Iterator[tuple[str, Path]]:
    """(path, the same) of every layer file under `root`, hidden folders skipped (as the loader skips them), sorted."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for file in sorted(files):
            if file.endswith(LAYER_SUFFIXES):
                path = os.path.join(folder, file)
                yield path, Path(path)


def _layer_parts(root: Path) -> Iterator[bytes | str]:
    if not root.is_dir():
        raise OSError(f"not a folder: {root}")
    for name, path in _walk(root):
        yield os.path.relpath(name, root)
        yield path.read_bytes()


def _folder(*, create: bool) -> Path | None:
    """The cache folder if it is safe to use: a real folder (not a link) of this user's, writable by no one else."""
    folder = directory()
    try:
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return folder


def _prune(folder: Path) -> None:
    """Keep the MAX_ENTRIES most recently written entries."""
    entries = [e for e in os.scandir(folder) if e.name.endswith(".json") and not e.name.startswith(".")]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in entries[: len(entries) - MAX_ENTRIES]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
