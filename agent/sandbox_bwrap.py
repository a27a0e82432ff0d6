"""The bubblewrap command line of the python tool's sandbox: what the sandboxed interpreter can see.

The view is built from nothing (bwrap starts from an empty tmpfs root, remounted read-only last):

* the interpreter binary, its shared libpython, the standard library (site-packages hidden under an
  empty read-only tmpfs) and the system's shared-library directory, each bound read-only at the same
  path as on the host, so Python finds its prefix as usual;
* `/dev` with the harmless device nodes bwrap creates (null, zero, urandom, ...), read-only;
* a size-limited tmpfs at `/tmp`, the working directory and the only writable place.

Not there: `/etc`, `/proc`, `/home`, `/root` (beyond the interpreter's own directory when Python is
installed below it), the project and its layers, keys files and database files, the server's
virtualenv. Every namespace is new (user, mount, pid, network, ipc, uts, cgroup): the network
namespace has only its own loopback, so 127.0.0.1 is not the host's. The process runs as uid/gid
65534 inside its user namespace, with no capabilities, no environment variables, a new session
(no terminal injection), nested user namespaces disabled, and it dies with the server.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

SANDBOX_UID = 65534  # "nobody" inside the user namespace
SCRATCH = "/tmp"


def interpreter() -> str:
    """The real interpreter binary (a virtualenv's python is a link to it; the venv itself stays out)."""
    return os.path.realpath(sys.executable)


def _inside(path: str, parents: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in parents)


def python_paths() -> tuple[list[str], list[str]]:
    """(paths to bind read-only, directories to hide) for the interpreter and its standard library.

    Taken from the base installation (where `os` and the extension modules were loaded from), not from
    a virtualenv, whose site-packages stay out."""
    binds = [interpreter()]
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    binds.append(stdlib)
    for name in ("math", "_json", "_struct", "select"):  # extension modules live in lib-dynload
        origin = getattr(sys.modules.get(name), "__file__", None)
        if origin:
            extra = os.path.dirname(os.path.realpath(origin))
            if not _inside(extra, binds):
                binds.append(extra)
            break
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
        if libdir and soname and os.path.exists(os.path.join(libdir, soname)):
            binds.append(os.path.realpath(os.path.join(libdir, soname)))
    hidden = [os.path.join(stdlib, d) for d in ("site-packages", "dist-packages")
              if os.path.isdir(os.path.join(stdlib, d))]
    return binds, hidden


def system_library_args() -> list[str]:
    """The shared-library directories (and the /lib, /lib64 links of a merged /usr) the interpreter loads from."""
    args: list[str] = []
    multiarch = sysconfig.get_config_var("MULTIARCH")
    usr_lib = f"/usr/lib/{multiarch}" if multiarch and os.path.isdir(f"/usr/lib/{multiarch}") else "/usr/lib"
    for directory in (usr_lib, "/usr/lib64", "/usr/lib32"):
        if os.path.isdir(directory) and not os.path.islink(directory):
            args += ["--ro-bind", directory, directory]
    for top in ("/lib", "/lib64", "/lib32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def command(bwrap: str, *, seccomp_fd: int, scratch_bytes: int, python_args: list[str]) -> list[str]:
    """The full argv: bwrap, its options, then the interpreter with `python_args`."""
    binds, hidden = python_paths()
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--clearenv", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--hostname", "sandbox"]
    args += system_library_args()
    for path in binds:
        args += ["--ro-bind", path, path]
    for path in hidden:
        args += ["--tmpfs", path, "--remount-ro", path]
    args += ["--dev", "/dev", "--remount-ro", "/dev",
             "--size", str(scratch_bytes), "--tmpfs", SCRATCH, "--chdir", SCRATCH,
             "--remount-ro", "/",
             "--seccomp", str(seccomp_fd),
             "--", interpreter()] + python_args
    return args


def bwrap_path() -> str | None:
    """SMQ_SANDBOX_BWRAP if set (a path; a missing one means no sandbox), else bwrap on the PATH or in the usual
    places (the service may run with a short PATH)."""
    from shutil import which

    chosen = os.environ.get("SMQ_SANDBOX_BWRAP", "").strip()
    if chosen:
        return chosen if os.path.isfile(chosen) and os.access(chosen, os.X_OK) else None
    found = which("bwrap")
    if found:
        return found
    for candidate in ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"):
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None
