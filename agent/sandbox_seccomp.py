"""A seccomp filter for the python tool's sandbox: no new processes, and less kernel to attack.

Why a filter on top of the namespaces: RLIMIT_NPROC is not enforced for processes whose host user
is root (the kernel exempts INIT_USER), so when the service runs as root a fork bomb inside the
user namespace would only be bounded by the pid namespace. The filter refuses every way to start a
process (fork, vfork, clone without CLONE_THREAD, clone3) with EPERM (ENOSYS for clone3, so the C
library falls back to clone for threads), and a few syscalls no analysis code needs that widen the
kernel's attack surface (ptrace, keyrings, bpf, perf, userfaultfd, io_uring, namespaces, mounts,
cross-process memory access). Syscalls of another ABI than the native one (i386 on x86_64, x32)
kill the process.

The program is classic BPF (`struct sock_filter`), assembled here so no library is needed; bwrap
loads it (`--seccomp FD`) right before it executes the interpreter.
"""

from __future__ import annotations

import errno
import platform
import struct

# BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K, _JGE_K, _JSET_K = 0x15, 0x35, 0x45
_RET_K = 0x06
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_CLONE_THREAD = 0x00010000
_X32_SYSCALL_BIT = 0x40000000
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16  # struct seccomp_data (arg0: low 32 bits, little-endian)

_ARCHES: dict[str, tuple[int, dict[str, int]]] = {  # machine -> (AUDIT_ARCH_*, syscall numbers)
    "x86_64": (0xC000003E, {
        "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "ptrace": 101, "keyctl": 250, "add_key": 248,
        "request_key": 249, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "unshare": 272, "setns": 308, "mount": 165,
        "umount2": 166, "pivot_root": 155, "process_vm_readv": 310, "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, {
        "clone": 220, "clone3": 435, "ptrace": 117, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
        "process_vm_readv": 270, "process_vm_writev": 271}),
}
_ARCHES["arm64"] = _ARCHES["aarch64"]

REFUSED = ("fork", "vfork", "ptrace", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
           "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount", "umount2",
           "pivot_root", "process_vm_readv", "process_vm_writev")


class UnsupportedArchitecture(Exception):
    """No syscall table for this machine: the sandbox is then not available."""


def supported() -> bool:
    return platform.machine() in _ARCHES


def filter_program(machine: str | None = None) -> bytes:
    """The filter as bytes of `struct sock_filter[]`, for bwrap's `--seccomp FD`."""
    machine = machine or platform.machine()
    if machine not in _ARCHES:
        raise UnsupportedArchitecture(f"no seccomp syscall table for {machine} (known: x86_64, aarch64)")
    arch, numbers = _ARCHES[machine]
    # (code, jump-if-true label, jump-if-false label, k); labels resolve to forward offsets
    program: list[tuple[int, str | None, str | None, int]] = [
        (_LD_W_ABS, None, None, _OFFSET_ARCH),
        (_JEQ_K, None, "kill", arch),
        (_LD_W_ABS, None, None, _OFFSET_NR),
    ]
    if machine == "x86_64":
        program.append((_JGE_K, "kill", None, _X32_SYSCALL_BIT))
    program += [(_JEQ_K, "eperm", None, numbers[name]) for name in REFUSED if name in numbers]
    program += [
        (_JEQ_K, "enosys", None, numbers["clone3"]),
        (_JEQ_K, None, "allow", numbers["clone"]),
        (_LD_W_ABS, None, None, _OFFSET_ARG0),
        (_JSET_K, "allow", "eperm", _CLONE_THREAD),
    ]
    labels = {"allow": len(program), "eperm": len(program) + 1, "enosys": len(program) + 2, "kill": len(program) + 3}
    program += [(_RET_K, None, None, _RET_ALLOW), (_RET_K, None, None, _RET_ERRNO | errno.EPERM),
                (_RET_K, None, None, _RET_ERRNO | errno.ENOSYS), (_RET_K, None, None, _RET_KILL_PROCESS)]
    out = bytearray()
    for index, (code, if_true, if_false, k) in enumerate(program):
        jt = labels[if_true] - index - 1 if if_true else 0
        jf = labels[if_false] - index - 1 if if_false else 0
        out += struct.pack("=HBBI", code, jt, jf, k)
    return bytes(out)
