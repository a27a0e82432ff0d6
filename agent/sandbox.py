"""The `python` tool's sandbox: untrusted code in a separate, OS-isolated process, or no python tool at all.

Why a kernel boundary: an audit hook inside an interpreter is a policy the code it watches can undo
(reset its state, load native code, start processes through private modules). So the code runs in
a bubblewrap sandbox (agent/sandbox_bwrap.py): new user, mount, pid, network, ipc and uts
namespaces, uid 65534, an empty environment, a read-only view of only the interpreter, its
standard library and the shared libraries, a size-limited tmpfs scratch directory, no /etc, no
/proc, no project files, keys, layers or databases; a seccomp filter (agent/sandbox_seccomp.py)
refuses new processes. The kernel enforces CPU seconds, address space, file size, open files and
processes (setrlimit, first thing in the sandboxed interpreter, before any user code; the code
cannot raise them back), the tmpfs size bounds the scratch space, and the parent enforces the
wall clock and the output caps.

Data is handed to the code, never a connection: `data` (JSON) is sent on stdin with the code and
written to `data.json` in the scratch directory (and `data.csv` when it has `columns` and `rows`).
stdout and stderr are read in chunks as they arrive; at the cap the sandbox is killed.

Whether the host can isolate is probed once (bwrap present, user namespaces allowed, the sandbox
starts and runs code) and cached; when it cannot, the tool is not offered anywhere. It is never
offered to keys with a role: row filters and hidden elements cannot follow data into Python.
"""

from __future__ import annotations

import json
import logging
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import QueryError

from . import sandbox_bwrap, sandbox_seccomp

log = logging.getLogger("smq.agent.sandbox")

PYTHON_TOOL = "python"
MAX_OUTPUT = 20_000  # bytes of stdout and of stderr each; the sandbox is killed when either goes past
MAX_CODE = 100_000  # characters of code
MAX_DATA = 8 * 1024 * 1024  # bytes of JSON data handed to the code


@dataclass(frozen=True)
class SandboxLimits:
    wall_s: float = 10.0
    cpu_s: int = 5
    memory_mb: int = 512
    file_mb: int = 16
    open_files: int = 64
    processes: int = 16  # threads count too; new processes are refused by the seccomp filter anyway
    scratch_mb: int = 64
    output_bytes: int = MAX_OUTPUT


@dataclass(frozen=True)
class SandboxResult:
    stdout: str
    stderr: str
    exit_code: int | None  # None: killed by the parent (wall clock or output cap)
    timed_out: bool
    output_truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code,
                "timed_out": self.timed_out, "output_truncated": self.output_truncated}


class SandboxError(QueryError):
    """The python tool cannot run this: the host has no isolation, or the input is too large."""

    code = "sandbox_unavailable"


@dataclass(frozen=True)
class Refusal:
    code: str
    message: str


# -- the code that runs first inside the sandbox -----------------------------------------------------------
BOOTSTRAP = r'''
import resource, sys
_limits = [int(x) for x in sys.argv[1:6]]
for _name, _value in zip(("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC"), _limits):
    resource.setrlimit(getattr(resource, _name), (_value, _value))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
import json
_envelope = json.loads(sys.stdin.buffer.read().decode("utf-8"))
if "data" in _envelope:
    with open("data.json", "w", encoding="utf-8") as _f:
        json.dump(_envelope["data"], _f, ensure_ascii=False)
    _d = _envelope["data"]
    if isinstance(_d, dict) and isinstance(_d.get("columns"), list) and isinstance(_d.get("rows"), list):
        import csv
        with open("data.csv", "w", encoding="utf-8", newline="") as _f:
            _w = csv.writer(_f)
            _w.writerow(_d["columns"])
            _w.writerows(r if isinstance(r, list) else [r] for r in _d["rows"])
_code = compile(_envelope["code"], "<python tool>", "exec")
del _envelope, _limits
sys.stdin = open("/dev/null")
exec(_code, {"__name__": "__main__", "__builtins__": __builtins__})
'''


# -- availability ----------------------------------------------------------------------------------------
_probe_lock = threading.Lock()
_probe: tuple[bool, str] | None = None


def isolation_status() -> tuple[bool, str]:
    """(available, reason): probed once per process (bwrap present, the sandbox starts and runs code)."""
    global _probe
    with _probe_lock:
        if _probe is None:
            _probe = _run_probe()
            if not _probe[0]:
                log.warning("the python tool is not offered: %s", _probe[1])
        return _probe


def forget_isolation_status() -> None:
    """Probe again on next use (after installing bubblewrap, or in tests that change SMQ_SANDBOX_BWRAP)."""
    global _probe
    with _probe_lock:
        _probe = None


def sandbox_available() -> bool:
    return isolation_status()[0]


def _run_probe() -> tuple[bool, str]:
    if not sandbox_bwrap.bwrap_path():
        return False, ("bubblewrap (bwrap) is not installed on this host (Debian: apt-get install bubblewrap), or "
                       "SMQ_SANDBOX_BWRAP names no executable")
    reason = sandbox_seccomp.unsupported_reason()
    if reason is not None:
        return False, f"no seccomp filter can be built: {reason}"
    try:
        result = _run("print(6 * 7)", None, SandboxLimits(wall_s=20, cpu_s=10))
    except OSError as err:
        return False, f"bwrap could not start: {err}"
    if result.exit_code == 0 and result.stdout == "42\n":
        return True, "bubblewrap sandbox"
    detail = (result.stderr or result.stdout).strip().splitlines()
    return False, "bwrap could not create the sandbox (user namespaces refused?): " + (detail[-1] if detail else
                                                                                         f"exit {result.exit_code}")


def python_tool_refusal(role: str | None) -> Refusal | None:
    """Why the python tool may not run for this caller (None: it may): a role, or no isolation on this host."""
    if role is not None:
        return Refusal("tool_refused", "the python tool is not offered to keys with a role: row filters and hidden "
                       "elements cannot follow data into Python")
    available, reason = isolation_status()
    if not available:
        return Refusal("sandbox_unavailable",
                       f"the python tool needs an isolated sandbox and this host has none: {reason}")
    return None


def python_tool_offered(enabled: bool, role: str | None) -> bool:
    """Whether to list the python tool: switched on, no role, and the host can isolate it."""
    return enabled and python_tool_refusal(role) is None


def offered_tools(tools: Sequence[str], role: str | None) -> tuple[str, ...]:
    """`tools` without `python` when it may not be offered to this role on this host (the agent's tool list)."""
    if PYTHON_TOOL not in tools or python_tool_offered(True, role):
        return tuple(tools)
    return tuple(t for t in tools if t != PYTHON_TOOL)


# -- running ---------------------------------------------------------------------------------------------
def run_python(code: str, limits: SandboxLimits | None = None, data: Any = None) -> SandboxResult:
    """Run `code` in the sandbox with `data` (any JSON; None: none) in data.json; raises SandboxError if the host
    cannot isolate it or the input is too large."""
    refusal = python_tool_refusal(None)
    if refusal is not None:
        raise SandboxError(refusal.message, code=refusal.code)
    if len(code) > MAX_CODE:
        raise SandboxError(f"the code is {len(code)} characters; at most {MAX_CODE}", code="sandbox_input_too_large")
    return _run(code, data, limits or SandboxLimits())


def _run(code: str, data: Any, lim: SandboxLimits) -> SandboxResult:
    envelope: dict[str, Any] = {"code": code}
    if data is not None:
        envelope["data"] = data
    payload = json.dumps(envelope, ensure_ascii=False, default=str).encode("utf-8")
    if len(payload) - len(code.encode("utf-8")) > MAX_DATA:
        raise SandboxError(f"the data is larger than {MAX_DATA} bytes of JSON; hand over fewer rows",
                           code="sandbox_input_too_large")
    bwrap = sandbox_bwrap.bwrap_path()
    if bwrap is None:
        raise OSError("bwrap not found")
    seccomp_fd = os.memfd_create("smq-sandbox-seccomp")
    try:
        os.write(seccomp_fd, sandbox_seccomp.filter_program())
        os.lseek(seccomp_fd, 0, os.SEEK_SET)
        limits = [lim.cpu_s, lim.memory_mb * 1024 * 1024, lim.file_mb * 1024 * 1024, lim.open_files, lim.processes]
        argv = sandbox_bwrap.command(bwrap, seccomp_fd=seccomp_fd, scratch_bytes=lim.scratch_mb * 1024 * 1024,
                                     python_args=["-I", "-S", "-B", "-X", "utf8", "-c", BOOTSTRAP]
                                     + [str(v) for v in limits])
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={}, cwd="/", start_new_session=True, pass_fds=(seccomp_fd,))
    finally:
        os.close(seccomp_fd)
    return _communicate(process, payload, lim)


def _communicate(process: subprocess.Popen, payload: bytes, lim: SandboxLimits) -> SandboxResult:
    """Feed stdin, read stdout/stderr in chunks up to the cap, kill at the cap or the wall clock."""
    writer = threading.Thread(target=_feed, args=(process, payload), daemon=True)
    writer.start()
    buffers = {"stdout": bytearray(), "stderr": bytearray()}
    selector = selectors.DefaultSelector()
    assert process.stdout is not None and process.stderr is not None
    selector.register(process.stdout, selectors.EVENT_READ, "stdout")
    selector.register(process.stderr, selectors.EVENT_READ, "stderr")
    deadline = time.monotonic() + lim.wall_s
    timed_out = truncated = False
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer = buffers[key.data]
                room = lim.output_bytes - len(buffer)
                buffer += chunk[:room]
                if len(chunk) > room:
                    truncated = True
            if truncated:
                break
    finally:
        selector.close()
        if timed_out or truncated:
            _kill(process)
        try:  # both pipes closed; the code may still run (it closed them itself) until the deadline
            process.wait(timeout=max(0.0, deadline - time.monotonic()) + 1)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(process)
            process.wait()
        for stream in (process.stdout, process.stderr):
            stream.close()
        writer.join(timeout=1)
    killed = timed_out or truncated
    stdout = buffers["stdout"].decode("utf-8", "replace")
    stderr = buffers["stderr"].decode("utf-8", "replace").strip()
    if truncated:
        note = f"[output cut at {lim.output_bytes} bytes; the code was stopped]"
        stdout, stderr = (stdout + "\n" + note, stderr) if len(buffers["stdout"]) >= lim.output_bytes else \
            (stdout, (stderr + "\n" + note).strip())
    code = None if killed else process.returncode
    if code is not None and (code < 0 or code > 128):  # bwrap reports a signalled child as 128 + signal
        signum = -code if code < 0 else code - 128
        stderr = (stderr + f"\n(the code was killed by signal {signum}; the CPU limit is {lim.cpu_s} s)").strip()
    return SandboxResult(stdout, stderr, code, timed_out, truncated)


def _feed(process: subprocess.Popen, payload: bytes) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(payload)
        process.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _kill(process: subprocess.Popen) -> None:
    """bwrap leads its own process group; the sandbox's pid 1 dies with it and takes every process inside along."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass
