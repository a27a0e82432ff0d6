"""The served databases: their layers (last good version), their executors, reload and file watching.

A reload reads every layer again. A layer whose files did not change keeps its `Layer` object (and
its compile cache); a changed one is swapped in atomically; one that now fails validation keeps
serving its last good version and carries the errors, which `/v1/ready` shows. Executors are
created on first use (a service starts while a backend is down) and survive reloads as long as
the layer's connection settings stay the same.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import Layer, LayerValidationError, load_layers
from engine.errors import EngineError, QueryError, nearest

from .errors import ServiceError

if TYPE_CHECKING:
    from smq_db.executors import Executor

log = logging.getLogger("smq.service")


@dataclass(frozen=True)
class Entry:
    """One database as served: the layer in use (None if it never loaded) and the latest load's errors."""

    name: str
    layer: Layer | None
    errors: LayerValidationError | None
    loaded_at: float | None

    @property
    def status(self) -> str:
        """ok: current; stale: serving the last good version, the files on disk are broken; invalid: nothing to serve."""
        if self.layer is None:
            return "invalid"
        return "stale" if self.errors else "ok"


@dataclass
class ReloadReport:
    reloaded: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass
class _Slot:
    """An executor (or the error creating it) for one database's connection settings."""

    fingerprint: str
    executor: Executor | None = None
    error: EngineError | None = None
    failed_at: float = 0.0


class Registry:
    """Thread-safe: request threads read entries and executors while a reload or the watcher swaps them."""

    def __init__(self, models_dir: Path, *, query_timeout_s: float = 30.0, backend_retry_s: float = 5.0) -> None:
        self.root = Path(models_dir)
        self._timeout = query_timeout_s
        self._retry = backend_retry_s
        self._entries: dict[str, Entry] = {}
        self._slots: dict[str, _Slot] = {}
        self._retired: list[tuple[threading.Timer, Executor]] = []  # closing later, each its executor
        self._create_locks: dict[str, threading.Lock] = {}
        self._lock = threading.RLock()
        self._reload_lock = threading.Lock()
        self._watcher: FileWatcher | None = None

    # -- layers -------------------------------------------------------------------------------
    def reload(self) -> ReloadReport:
        """Read every layer again; raises LayerValidationError only when the models folder itself is missing."""
        with self._reload_lock:
            fresh = load_layers(self.root)
            now = time.time()
            report = ReloadReport()
            entries: dict[str, Entry] = {}
            for name, layer in fresh.items():
                old = self._entries.get(name)
                if old is not None and old.layer is not None and old.layer.version == layer.version:
                    entries[name] = Entry(name, old.layer, None, old.loaded_at)
                    report.unchanged.append(name)
                else:
                    entries[name] = Entry(name, layer, None, now)
                    report.reloaded.append(name)
            for name, err in fresh.errors.items():
                old = self._entries.get(name)
                entries[name] = Entry(name, old.layer if old else None, err, old.loaded_at if old else None)
                report.failed.append(name)
                log.warning("layer %s failed to load (%d error(s)); %s", name, len(err.errors),
                            "serving its last good version" if old and old.layer else "not served")
            report.removed = sorted(set(self._entries) - set(entries))
            with self._lock:
                self._entries = entries
                for name in report.removed:
                    self._retire(name)
            return report

    def entries(self) -> list[Entry]:
        with self._lock:
            return sorted(self._entries.values(), key=lambda e: e.name)

    def find(self, name: str) -> Entry | None:
        """The entry of a database, or None."""
        with self._lock:
            return self._entries.get(name)

    def entry(self, name: str, visible: Iterable[str] | None = None) -> Entry:
        """The entry of a database; unknown ones raise unknown_database with suggestions among `visible`."""
        with self._lock:
            found = self._entries.get(name)
            names = list(self._entries) if visible is None else list(visible)
        if found is None:
            raise QueryError(f"unknown database '{name}'", code="unknown_database", suggestions=nearest(name, names))
        return found

    def layer(self, entry: Entry) -> Layer:
        """The layer to serve, or database_invalid when the database never loaded."""
        if entry.layer is None:
            count = len(entry.errors.errors) if entry.errors else 0
            raise ServiceError(f"database '{entry.name}' failed to load: {count} error(s) in its layer; see /v1/ready",
                               code="database_invalid")
        return entry.layer

    def relative_errors(self, err: LayerValidationError) -> list[dict[str, Any]]:
        """A layer's errors with file paths relative to the models folder (no server paths leak)."""
        out = []
        for e in err.errors:
            item = e.to_dict()
            file = item["location"].get("file")
            if file:
                try:
                    item["location"]["file"] = Path(os.path.abspath(file)).relative_to(self.root.resolve()).as_posix()
                except ValueError:
                    item["location"]["file"] = Path(file).name
            out.append(item)
        return out

    # -- executors ----------------------------------------------------------------------------
    def executor(self, layer: Layer) -> Executor:
        """The executor of a layer's database, created on first use; raises BackendUnavailable/ConfigError.

        A failure is remembered for `backend_retry_s` so a dead backend is not hammered by every request.
        Creation (which may build the demo file or open a pool) holds only this database's lock, never
        the registry's, so requests for other databases and listings never wait on it.
        """
        connection = dict(layer.semantic.connection)
        fingerprint = _fingerprint(layer)
        ready = self._usable_executor(layer.name, fingerprint)
        if ready is not None:
            return ready
        with self._lock:
            create_lock = self._create_locks.setdefault(layer.name, threading.Lock())
        with create_lock:
            ready = self._usable_executor(layer.name, fingerprint)  # another thread may have made it meanwhile
            if ready is not None:
                return ready
            slot = _Slot(fingerprint)
            try:
                created = slot.executor = _create(layer, connection, self._timeout)
            except EngineError as err:
                slot.error, slot.failed_at = err, time.monotonic()
                log.warning("database %s: cannot create its executor: %s", layer.name, err.message)
                raise
            finally:
                with self._lock:
                    if self._slots.get(layer.name) is not None and self._slots[layer.name].fingerprint != fingerprint:
                        self._retire(layer.name)
                    self._slots[layer.name] = slot
            return created

    def open_executor(self, layer: Layer) -> Executor | None:
        """The layer's executor if it is open already (nothing is created, nothing waited for; a recent failure
        is raised): what an event loop may ask without blocking. None: call `executor` (in a thread)."""
        return self._usable_executor(layer.name, _fingerprint(layer))

    def _usable_executor(self, name: str, fingerprint: str) -> Executor | None:
        """The current slot's executor if it has one for these settings; re-raises a recent failure."""
        with self._lock:
            slot = self._slots.get(name)
        if slot is None or slot.fingerprint != fingerprint:
            return None
        if slot.executor is not None:
            return slot.executor
        if slot.error is not None and time.monotonic() - slot.failed_at < self._retry:
            raise slot.error
        return None

    def _retire(self, name: str) -> None:
        """Close a database's executor once queries already running on it have had time to finish."""
        slot = self._slots.pop(name, None)
        if slot is None or slot.executor is None:
            return
        timer = threading.Timer(self._timeout + 5, _close_quietly, args=(slot.executor,))
        timer.daemon = True
        timer.start()
        self._retired = [(t, e) for t, e in self._retired if t.is_alive()] + [(timer, slot.executor)]

    # -- watching -----------------------------------------------------------------------------
    def watch(self, on_change: Callable[[], object], *, interval_s: float = 1.0, extra_files: Iterable[Path] = ()) -> None:
        """Poll the layer files (and `extra_files`, e.g. the keys file) and call `on_change` when any changes."""
        extras = [Path(p) for p in extra_files]
        self._watcher = FileWatcher(lambda: snapshot(self.root, extras), on_change, interval_s)
        self._watcher.start()

    def build_demo_databases(self) -> None:
        """Build any missing demo database now (before worker processes would race to build it)."""
        for entry in self.entries():
            if entry.layer is not None:
                try:
                    from smq_db.open import ensure_demo_for

                    ensure_demo_for(entry.layer)
                except Exception as exc:  # noqa: BLE001 - the worker reports it on first use (503)
                    log.warning("demo database of '%s' not built: %s", entry.name, exc)

    def close(self) -> None:
        """Stop watching and close every executor now (shutdown)."""
        if self._watcher is not None:
            self._watcher.stop()
        with self._lock:
            slots, self._slots = list(self._slots.values()), {}
            timers, self._retired = self._retired, []
        for timer, retired in timers:
            timer.cancel()
            _close_quietly(retired)
        for slot in slots:
            if slot.executor is not None:
                _close_quietly(slot.executor)


def _create(layer: Layer, connection: dict[str, Any], timeout_s: float) -> Executor:
    from smq_db.open import open_for_layer  # the executors package pulls in the drivers

    return open_for_layer(layer, connection=connection, default_timeout_s=timeout_s)


def _close_quietly(executor: Executor) -> None:
    try:
        executor.close()
    except Exception:  # noqa: BLE001 - closing is best effort at shutdown/reload
        log.debug("closing an executor failed", exc_info=True)


def snapshot(root: Path, extra_files: Iterable[Path] = ()) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every YAML file of every layer, plus `extra_files`; data folders are skipped."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "data"]
        for name in filenames:
            if name.endswith((".yml", ".yaml")):
                _stat_into(out, Path(dirpath) / name)
    for path in extra_files:
        _stat_into(out, path)
    return out


def _stat_into(out: dict[str, tuple[int, int]], path: Path) -> None:
    try:
        st = path.stat()
    except OSError:
        return  # deleted between listing and stat: the next poll sees it gone
    out[str(path)] = (st.st_mtime_ns, st.st_size)


class FileWatcher:
    """A daemon thread that polls a snapshot function; no dependency, works on every filesystem."""

    def __init__(self, take: Callable[[], dict], on_change: Callable[[], object], interval_s: float) -> None:
        self._take = take
        self._on_change = on_change
        self._interval = interval_s
        self._stop = threading.Event()
        self._last: dict = {}
        self._thread = threading.Thread(target=self._run, name="smq-layer-watcher", daemon=True)

    def start(self) -> None:
        self._last = self._take()  # now, not in the thread: an edit right after start() must count as a change
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self._interval + 5)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                current = self._take()
                if current != self._last:
                    self._last = current
                    log.info("layer files changed; reloading")
                    self._on_change()
            except Exception:  # noqa: BLE001 - the watcher must survive anything a reload throws
                log.exception("reloading after a file change failed")


_FINGERPRINTS: weakref.WeakKeyDictionary[Layer, str] = weakref.WeakKeyDictionary()


def _fingerprint(layer: Layer) -> str:
    """What an executor is made from (connection settings, folder, dialect), as text; remembered per layer object
    (a layer is immutable; a reload makes a new one), so a request does not serialise the settings again."""
    text = _FINGERPRINTS.get(layer)
    if text is None:
        text = json.dumps([dict(layer.semantic.connection), str(layer.semantic.directory), layer.dialect], sort_keys=True,
                          default=str)
        _FINGERPRINTS[layer] = text
    return text
