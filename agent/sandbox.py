"""The `python` tool's sandbox: untrusted code in a fresh interpreter with hard limits and no network.

What was chosen, and why (no containers or namespaces are assumed: the service may run unprivileged):

* a new process (`python -I -S`: isolated mode, no site-packages, no environment variables read, an
  empty environment, a fresh temporary working directory deleted afterwards, its own session so
  the whole process group is killed on time-out);
* limits set by the child on itself with `resource.setrlimit` before any user code runs: CPU seconds
  (RLIMIT_CPU), address space (RLIMIT_AS), file size (RLIMIT_FSIZE), open files (RLIMIT_NOFILE), no
  core dumps; the parent also enforces a wall-clock time-out;
* an audit hook (PEP 578, `sys.addaudithook`, which cannot be removed once installed) that refuses
  sockets (creation, connect, bind, DNS), new processes (subprocess, os.system, exec*, spawn*,
  fork), ctypes / native library loading, writing files outside the working directory, and reading
  files outside the working directory and the Python installation (no keys files, layers or /etc).
  The hook runs before the user's code, which is compiled and run by the bootstrap.

Limits of this design: an audit hook is a policy inside the same interpreter, not a kernel
boundary; code that found a memory-corruption bug in CPython could escape it. Run the service under
its own unprivileged user (and a container) when the python tool is enabled for untrusted callers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

MAX_OUTPUT = 20_000  # characters of stdout/stderr returned to the model


@dataclass(frozen=True)
class SandboxLimits:
    wall_s: float = 10.0
    cpu_s: int = 5
    memory_mb: int = 512
    file_mb: int = 16
    open_files: int = 64


@dataclass(frozen=True)
class SandboxResult:
    stdout: str
    stderr: str
    exit_code: int | None
    timed_out: bool

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code, "timed_out": self.timed_out}


BOOTSTRAP = r'''
import os, resource, sys
cpu, mem, fsize, nofile = (int(x) for x in sys.argv[1:5])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
code = sys.stdin.read()
work = os.path.realpath(os.getcwd())
roots = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)})
DENY = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
        "ctypes.", "os.kill", "os.killpg", "pty.", "webbrowser.", "os.chdir", "os.chroot", "os.setuid", "os.putenv",
        "os.unsetenv", "resource.setrlimit", "sys.addaudithook", "import_module_ext", "mmap.")
def _inside(path, bases):
    try:
        real = os.path.realpath(os.fsdecode(path)) if not isinstance(path, int) else None
    except Exception:
        return False
    return real is not None and any(real == b or real.startswith(b + os.sep) for b in bases)
def hook(event, args):
    if event.startswith(DENY):
        raise PermissionError(f"sandbox: {event} is not allowed (no network, processes or native code)")
    if event == "open":
        path, mode = args[0], args[1]
        if isinstance(path, int):
            return
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        if writing or (isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)):
            if not _inside(path, (work,)):
                raise PermissionError(f"sandbox: writing {path!r} is not allowed (only the working directory)")
        elif not _inside(path, (work,) + roots):
            raise PermissionError(f"sandbox: reading {path!r} is not allowed")
    if event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "shutil.rmtree", "os.symlink", "os.link", "os.chmod"):
        if not _inside(args[0], (work,)):
            raise PermissionError(f"sandbox: {event} outside the working directory is not allowed")
compiled = compile(code, "<python tool>", "exec")
sys.addaudithook(hook)
del resource
namespace = {"__name__": "__main__"}
exec(compiled, namespace)
'''


def run_python(code: str, limits: SandboxLimits | None = None) -> SandboxResult:
    """Run `code` in the sandbox; its stdout/stderr (capped) and exit code, or timed_out."""
    lim = limits or SandboxLimits()
    with tempfile.TemporaryDirectory(prefix="smq-python-") as work:
        args = [sys.executable, "-I", "-S", "-c", BOOTSTRAP, str(lim.cpu_s), str(lim.memory_mb * 1024 * 1024),
                str(lim.file_mb * 1024 * 1024), str(lim.open_files)]
        process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work,
                                   env={"PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"}, start_new_session=True)
        timed_out = False
        try:
            out, err = process.communicate(code.encode("utf-8"), timeout=lim.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
            out, err = process.communicate()
        code_ = process.returncode
    stderr = err.decode("utf-8", "replace")
    if code_ is not None and code_ < 0 and not timed_out:
        stderr += f"\n(killed by signal {-code_}: a CPU or memory limit was reached)"
    return SandboxResult(_cap(out.decode("utf-8", "replace")), _cap(stderr.strip()), None if timed_out else code_, timed_out)


def _kill_group(process: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def _cap(text: str) -> str:
    return text if len(text) <= MAX_OUTPUT else text[:MAX_OUTPUT] + f"\n... ({len(text) - MAX_OUTPUT} more characters)"
