"""A seccomp filter for the python tool's sandbox: no new processes, and less kernel to attack.

Why a filter on top of the namespaces: RLIMIT_NPROC is not enforced for processes whose host user
is root (the kernel exempts INIT_USER), so when the service runs as root a fork bomb inside the
user namespace would only be bounded by the pid namespace. The filter refuses every way to start a
process (fork, vfork, clone without CLONE_THREAD, clone3) with EPERM (ENOSYS for clone3, so the C
library falls back to clone for threads), and a few syscalls no analysis code needs that widen the
kernel's attack surface (ptrace, keyrings, bpf, perf, userfaultfd, io_uring, namespaces, mounts,
cross-process memory access). Syscalls of another ABI than the native one (i386 on x86_64, x32)
kill the process.

The program is compiled by libseccomp (the system's libseccomp.so.2, through the `pyseccomp` ctypes
binding, whose API is libseccomp's own Python binding's), which knows each architecture's syscall
numbers and ABI checks (the x32 bit on x86_64 included); before, the BPF was assembled here by hand
from a table of numbers for two architectures. bwrap loads it (`--seccomp FD`) right before it
executes the interpreter.
"""

from __future__ import annotations

import ctypes.util
import errno
import os
from typing import Any

_CLONE_THREAD = 0x00010000

REFUSED = ("fork", "vfork", "ptrace", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
           "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount", "umount2",
           "pivot_root", "process_vm_readv", "process_vm_writev")


class UnsupportedArchitecture(Exception):
    """No seccomp filter can be built here (no libseccomp, or no pyseccomp): the sandbox is then not available."""


def _binding() -> Any:
    if ctypes.util.find_library("seccomp") is None:
        raise UnsupportedArchitecture("libseccomp is not installed (Debian/Ubuntu: apt-get install libseccomp2)")
    try:
        import pyseccomp  # type: ignore[import-untyped]
    except (ImportError, RuntimeError, OSError) as err:
        raise UnsupportedArchitecture(f"the seccomp binding cannot be loaded ({err}); pip install pyseccomp") from None
    return pyseccomp


def supported() -> bool:
    try:
        _binding().system_arch()
    except (UnsupportedArchitecture, AttributeError, OSError):
        return False
    return True


def unsupported_reason() -> str | None:
    """Why no filter can be built here, or None."""
    try:
        _binding().system_arch()
    except UnsupportedArchitecture as err:
        return str(err)
    except (AttributeError, OSError) as err:
        return f"libseccomp does not answer: {err}"
    return None


def build_filter() -> Any:
    """The filter as a libseccomp context (native architecture only: any other ABI kills the process)."""
    seccomp = _binding()
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    for name in REFUSED:  # a name the architecture lacks (fork on aarch64) is a pseudo-syscall libseccomp skips
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, 0))
    return rules


def filter_program() -> bytes:
    """The filter as bytes of `struct sock_filter[]`, for bwrap's `--seccomp FD`."""
    rules = build_filter()
    fd = os.memfd_create("smq-seccomp-export")
    try:
        with os.fdopen(os.dup(fd), "rb") as out:
            rules.export_bpf(out)
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
