"""The python tool's sandbox: it runs code, and its limits hold (time, CPU, memory, network, files, processes)."""

from __future__ import annotations

import socket

import pytest

from agent.sandbox import SandboxLimits, run_python

FAST = SandboxLimits(wall_s=3, cpu_s=2, memory_mb=256)


def test_runs_code_with_the_standard_library():
    out = run_python("import json, statistics\nprint(json.dumps(statistics.mean([1, 2, 3])))", FAST)
    assert out.stdout == "2\n" and out.exit_code == 0 and not out.timed_out


def test_wall_clock_limit():
    out = run_python("import time\ntime.sleep(30)", SandboxLimits(wall_s=1))
    assert out.timed_out and out.exit_code is None


def test_cpu_limit():
    out = run_python("while True:\n    pass", SandboxLimits(wall_s=10, cpu_s=1))
    assert not out.timed_out and out.exit_code != 0 and "limit" in out.stderr


def test_memory_limit():
    out = run_python("x = bytearray(1_000_000_000)\nprint('allocated')", FAST)
    assert out.exit_code != 0 and "MemoryError" in out.stderr and "allocated" not in out.stdout


@pytest.fixture()
def listener():
    """A local listening socket; after the test, a non-blocking accept tells whether anything connected."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)

    def connected() -> bool:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    yield server.getsockname()[1], connected
    server.close()


def test_no_network(listener):
    port, connected = listener
    code = f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')"
    out = run_python(code, FAST)
    assert out.exit_code != 0 and "not allowed" in out.stderr and "connected" not in out.stdout
    assert not connected()


@pytest.mark.parametrize("code", [
    "import subprocess\nsubprocess.run(['true'])",
    "import os\nos.system('true')",
    "print(open('/etc/hostname').read())",
    "open('/tmp/smq-sandbox-escape', 'w').write('x')",
    "import ctypes",
])
def test_no_processes_native_code_or_files_outside(code):
    out = run_python(code, FAST)
    assert out.exit_code != 0 and "sandbox:" in out.stderr


def test_its_own_working_directory_is_writable():
    out = run_python("open('a.txt', 'w').write('hi')\nprint(open('a.txt').read())", FAST)
    assert out.stdout == "hi\n"
