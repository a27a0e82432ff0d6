"""Attacks on the python tool's sandbox, each one that escaped the former in-process audit-hook sandbox.

Every snippet starts with PRELUDE, which switched the old hook off (its deny list and path check
were globals of `__main__`): what the code may do must not depend on a policy inside the
interpreter. Each test looks at the host afterwards (files unchanged, nothing connected, no marker
written by a child process or by native code), not at an error message.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent import sandbox as sandbox_module
from agent.sandbox import SandboxLimits
from tests.agent.sandbox_support import sandbox  # noqa: F401 - fixture
from tests.conftest import ROOT

FAST = SandboxLimits(wall_s=15, cpu_s=5, memory_mb=256)
PRELUDE = "import __main__\n__main__.DENY = ()\n__main__._inside = lambda *a, **k: True\n"
pytestmark = pytest.mark.usefixtures("sandbox")


def attack(code: str, limits: SandboxLimits = FAST) -> sandbox_module.SandboxResult:
    return sandbox_module.run_python(PRELUDE + code, limits)


def test_resetting_the_hook_state_gives_no_shell(tmp_path: Path):
    marker = tmp_path / "shell-ran"
    out = attack(f"import os, subprocess\nprint('system', os.system('touch {marker}'))\n"
                 f"try:\n    subprocess.run(['/bin/sh', '-c', 'touch {marker}'])\n"
                 "except OSError as e:\n    print(type(e).__name__)")
    assert "system 0" not in out.stdout
    assert not marker.exists()


def test_posixsubprocess_fork_exec_starts_nothing(tmp_path: Path):
    marker = tmp_path / "child-ran"
    child = f"open({str(marker)!r}, 'w').write('escaped')"
    code = f"""
import _posixsubprocess, os, sys
exe = os.fsencode(sys.executable)
errpipe_read, errpipe_write = os.pipe()
try:
    pid = _posixsubprocess.fork_exec([exe, b"-c", {child.encode()!r}], [exe], True, (errpipe_write,), None, None,
                                     -1, -1, -1, -1, -1, -1, errpipe_read, errpipe_write, False, False, -1,
                                     None, None, None, -1, None, False)
    os.waitpid(pid, 0)
    print("started", pid)
except OSError as e:
    print("refused", e.errno)
"""
    out = attack(code)
    assert "refused" in out.stdout or "started" not in out.stdout, out.stderr
    assert not marker.exists()


def test_fork_bomb_is_bounded():
    code = """
import os, time
started = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    started += 1
print("started", started)
"""
    out = attack(code)
    assert out.exit_code == 0, out.stderr
    assert int(out.stdout.split()[-1]) < FAST.processes


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the native module")
def test_native_code_runs_but_cannot_reach_the_host(tmp_path: Path):
    marker = tmp_path / "native-ran"
    source = tmp_path / "evil.c"
    source.write_text('#include <stdio.h>\n'
                      'static void mark(const char *p) {\n'
                      '    FILE *f = fopen(p, "w"); if (f) { fputs("x", f); fclose(f); }\n}\n'
                      f'void *PyInit_evil(void) {{ mark("ran-inside"); mark("{marker}"); return 0; }}\n')
    library = tmp_path / "evil.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    blob = base64.b64encode(library.read_bytes()).decode()
    code = f"""
import base64, os, sys
open("evil.so", "wb").write(base64.b64decode({blob!r}))
sys.path.insert(0, os.getcwd())
try:
    import evil
except SystemError:
    pass
import ctypes
ctypes.CDLL(os.path.abspath("evil.so")).PyInit_evil()
print("inside" if os.path.exists("ran-inside") else "did not run")
"""
    out = attack(code)
    assert "inside" in out.stdout, out.stderr  # the native code ran, in the sandbox ...
    assert not marker.exists()  # ... and could not write to the host


def test_os_replace_cannot_overwrite_a_file_outside(tmp_path: Path):
    keys = tmp_path / "keys.yml"
    keys.write_text("keys: []\n")
    code = f"""
import os
open("evil.yml", "w").write("keys: [{{name: attacker, admin: true}}]")
for attempt in (lambda: os.replace("evil.yml", {str(keys)!r}), lambda: os.rename({str(keys)!r}, "stolen"),
                lambda: os.truncate({str(keys)!r}, 0), lambda: os.unlink({str(keys)!r}),
                lambda: os.link({str(keys)!r}, "linked"), lambda: open({str(keys)!r}, "a").write("x")):
    try:
        attempt()
        print("done")
    except OSError as e:
        print("refused", e.errno)
"""
    out = attack(code)
    assert "done" not in out.stdout, out.stdout
    assert keys.read_text() == "keys: []\n"


def test_host_files_are_not_there(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret-token")
    passwd = Path("/etc/passwd").read_text().splitlines()[0] if Path("/etc/passwd").exists() else "root:x:0:0"
    code = f"""
import os
for path in ({str(secret)!r}, "/etc/passwd", "/etc/hostname", {str(ROOT / "pyproject.toml")!r},
             os.path.expanduser("~/.bash_history")):
    try:
        print(open(path).read()[:200])
    except OSError as e:
        print("refused", path, e.errno)
print(sorted(os.listdir("/")))
print(os.path.exists({str(ROOT)!r}), os.path.exists({str(Path(sys.prefix))!r}))
"""
    out = attack(code)
    assert "s3cret-token" not in out.stdout and passwd not in out.stdout and "[project]" not in out.stdout
    assert "'etc'" not in out.stdout and "'proc'" not in out.stdout and "'home'" not in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "False False"  # neither the project nor the server's venv


def test_a_sqlite_file_outside_cannot_be_read(tmp_path: Path):
    db = tmp_path / "customers.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE customers (name TEXT)")
        conn.execute("INSERT INTO customers VALUES ('Every Customer GmbH')")
    out = attack(f"import sqlite3\ntry:\n    print(sqlite3.connect('file:{db}?mode=ro', uri=True)"
                 ".execute('SELECT name FROM customers').fetchall())\n"
                 "except sqlite3.Error as e:\n    print('refused', e)")
    assert "Every Customer" not in out.stdout and "refused" in out.stdout


@pytest.fixture()
def listener():
    """A listening socket on the host's loopback; afterwards, whether anything connected to it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
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


def test_no_network_to_the_hosts_loopback(listener):
    port, connected = listener
    code = f"""
import socket
for port in ({port}, 5432, 3306, 6379):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        print("connected", port)
    except OSError as e:
        print("refused", port, e.errno)
"""
    out = attack(code)
    assert "connected" not in out.stdout, out.stdout
    assert not connected()


def test_the_servers_environment_is_not_visible():
    """A server started with a secret in its environment (as database passwords often are) runs the code."""
    code = PRELUDE + """
import os
print(dict(os.environ))
for path in (f"/proc/{os.getppid()}/environ", "/proc/self/environ", "/proc/1/environ"):
    try:
        print(open(path, "rb").read())
    except OSError as e:
        print("refused", path, e.errno)
"""
    server = ("import sys\nfrom agent import sandbox\nout = sandbox.run_python(sys.stdin.read())\n"
              "print(out.stdout, out.stderr, out.exit_code)")
    env = {**os.environ, "SMQ_TEST_DB_PASSWORD": "hunter2-secret"}
    done = subprocess.run([sys.executable, "-c", server], input=code, capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith(" 0"), done.stdout + done.stderr
    assert "hunter2-secret" not in done.stdout and "SMQ_TEST_DB_PASSWORD" not in done.stdout


def test_memory_bomb_is_bounded_in_process_and_in_scratch():
    code = """
import os
held, ram, files = [], 0, 0
try:
    while ram < 2048:
        held.append(bytearray(8 * 1024 * 1024)); ram += 8
except MemoryError:
    pass
del held
try:
    while files < 320:
        with open(f"fill-{files}", "wb") as f:
            f.write(b"x" * 8 * 1024 * 1024)
        files += 8
except OSError:
    pass
print(ram, files)
"""
    limits = SandboxLimits(wall_s=30, cpu_s=10, memory_mb=256, scratch_mb=64)
    out = attack(code, limits)
    assert out.exit_code == 0, out.stderr
    ram, files = (int(x) for x in out.stdout.split())
    assert ram <= limits.memory_mb and files <= limits.scratch_mb


def test_an_output_flood_is_cut_while_it_streams():
    out = attack("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n    sys.stderr.write('y' * 100)",
                 SandboxLimits(wall_s=60, output_bytes=10_000))
    assert out.output_truncated and not out.timed_out and out.exit_code is None
    assert len(out.stdout) < 10_200 and len(out.stderr) < 10_200 and "output cut" in out.stdout + out.stderr
