"""The python tool's seccomp filter, compiled by libseccomp (pyseccomp), loaded into a real process: new processes
and the kernel's wider surfaces are refused, threads still start, foreign ABIs are checked. Independent of bwrap,
so it runs wherever libseccomp does (the escape tests in test_sandbox_escapes.py run it inside the sandbox)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import pytest

from agent import sandbox_seccomp

pytestmark = pytest.mark.skipif(not sandbox_seccomp.supported(), reason=str(sandbox_seccomp.unsupported_reason()))

PROBE = r"""
import ctypes, errno, json, os, threading
from agent import sandbox_seccomp
sandbox_seccomp.build_filter().load()
out = {}
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    out["fork"] = "allowed"
except OSError as err:
    out["fork"] = errno.errorcode[err.errno]
ran = []
t = threading.Thread(target=lambda: ran.append(1)); t.start(); t.join()
out["thread"] = bool(ran)
libc = ctypes.CDLL(None, use_errno=True)
out["unshare"] = errno.errorcode.get(ctypes.get_errno(), "?") if libc.unshare(0x20000000) != 0 else "allowed"
try:
    import subprocess
    subprocess.run(["/bin/true"])
    out["subprocess"] = "allowed"
except OSError as err:
    out["subprocess"] = errno.errorcode[err.errno]
print(json.dumps(out))
"""


def test_a_process_under_the_filter_cannot_start_processes_but_can_start_threads() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen == {"fork": "EPERM", "thread": True, "unshare": "EPERM", "subprocess": "EPERM"}, seen


def test_the_program_checks_the_architecture_and_the_x32_bit() -> None:
    program = sandbox_seccomp.filter_program()
    instructions = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    assert instructions[0] == (0x20, 0, 0, 4)  # load seccomp_data.arch first
    ks = {k for _, _, _, k in instructions}
    assert 0x80000000 in ks  # SECCOMP_RET_KILL_PROCESS for a foreign ABI
    if struct.calcsize("P") == 8 and sys.platform == "linux" and 0xC000003E in ks:  # x86_64
        assert 0x40000000 in ks  # x32 syscalls are another ABI
