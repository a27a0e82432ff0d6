"""`smq keys hash|new` and `smq serve`'s refusal to start unsecured."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from service.auth import KeyStore, hash_key
from smq_cli.main import main
from tests.conftest import ROOT


def test_keys_hash_prints_the_digest_the_service_accepts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["keys", "hash", "s3cret"]) == 0
    digest = capsys.readouterr().out.strip()
    assert digest == hash_key("s3cret") and len(digest) == 64
    keys = tmp_path / "keys.yml"
    keys.write_text(yaml.safe_dump({"keys": [{"name": "k", "sha256": digest, "databases": ["shop"]}]}))
    assert KeyStore.load(keys).authenticate("Bearer s3cret").name == "k"


def test_keys_hash_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret\n"))
    assert main(["keys", "hash", "-"]) == 0
    assert capsys.readouterr().out.strip() == hash_key("s3cret")


def test_keys_new_prints_a_loadable_entry(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["keys", "new", "--name", "bi", "--databases", "shop", "--role", "de_analyst"]) == 0
    out = capsys.readouterr()
    key = out.err.split(": ", 1)[1].splitlines()[0].strip()
    keys = tmp_path / "keys.yml"
    keys.write_text(yaml.safe_dump({"keys": yaml.safe_load(out.out)}))
    principal = KeyStore.load(keys).authenticate(f"Bearer {key}")
    assert principal.role == "de_analyst" and principal.databases == frozenset({"shop"})


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SMQ_API_KEYS_FILE", "SMQ_OPEN_ACCESS", "SMQ_MODELS_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_serve_refuses_to_start_without_keys(no_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--models-dir", "semantic_models"]) == 3
    err = capsys.readouterr().err
    assert "--api-keys" in err and "--open" in err


@pytest.mark.parametrize(("content", "message"), [
    ("keys: [oops", "not valid YAML"),
    ("keys:\n  - name: a\n    sha256: abc\n    databases: [shop]\n", "sha256"),
    ("keys:\n  - name: a\n    sha256: " + "a" * 64 + "\n    databases: [shop]\n    rol: x\n", "rol"),
    ("nothing: here\n", "keys:"),
])
def test_serve_refuses_a_bad_keys_file(no_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       content: str, message: str) -> None:
    keys = tmp_path / "keys.yml"
    keys.write_text(content)
    assert main(["serve", "--models-dir", "semantic_models", "--api-keys", str(keys)]) == 3
    assert message in capsys.readouterr().err


def test_serve_refuses_a_missing_models_folder(no_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--open", "--models-dir", str(tmp_path / "nope")]) == 3
    assert "models folder not found" in capsys.readouterr().err


def test_serve_reads_settings_from_the_environment(no_env: None, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SMQ_PORT", "not-a-port")
    assert main(["serve", "--open"]) == 3
    assert "port" in capsys.readouterr().err


def _children(pid: int) -> list[int]:
    """Live child processes of `pid` (Linux /proc)."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            out.append(int(status.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts worker processes through /proc")
def test_serve_with_several_workers_serves_and_reloads_in_each(tmp_path: Path, served_duckdb: Path, keys_file: Path) -> None:
    """`--workers 2`: two processes answer, and a layer change reaches both (each watches the files)."""
    import time

    import httpx

    from tests.service.conftest import auth, copy_layer, running_service

    models = tmp_path / "models"
    copy_layer(models / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    with running_service("--workers", "2", "--models-dir", str(models), "--api-keys", str(keys_file),
                         env={"SMQ_RELOAD_INTERVAL_S": "0.2"}, ready=lambda server: len(_children(server.pid)) >= 2) as base:
        # a new connection per request ("Connection: close"), so that both workers get some of them
        with httpx.Client(base_url=base, headers={**auth("all-key"), "Connection": "close"}, timeout=30) as client:
            answers = [client.post("/v1/databases/shop/query", json={"smq": smq}) for _ in range(8)]
            assert {r.status_code for r in answers} == {200}
            assert len({str(r.json()["rows"]) for r in answers}) == 1
            orders = models / "shop" / "models" / "orders.yml"
            orders.write_text(orders.read_text().replace("  - name: averageOrderValue", "  - name: ordersAgain\n"
                              "    type: derived\n    expr: OrdersModel__orderCount\n  - name: averageOrderValue", 1))
            renamed = {**smq, "metrics": ["ordersAgain"]}
            deadline = time.monotonic() + 60
            while True:  # every worker must pick the change up: 12 answers in a row from any of them
                results = [client.post("/v1/databases/shop/query", json={"smq": renamed}).status_code for _ in range(12)]
                if set(results) == {200}:
                    break
                assert time.monotonic() < deadline, f"a worker kept the old layer: {results}"
                time.sleep(0.3)


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`smq serve ARGS` in a child process: where a refusal is missing it would serve, so a timeout ends it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SMQ_")}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return subprocess.run([sys.executable, "-m", "smq_cli.main", "serve", "--port", str(port), *args],
                          env={**clean, **(env or {})}, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_serve_open_refuses_a_non_loopback_host() -> None:
    done = _serve("--open", "--host", "0.0.0.0", "--models-dir", "semantic_models")
    assert done.returncode == 2, done.stderr
    assert "on 0.0.0.0" in done.stderr and "--allow-open-remote" in done.stderr and "--api-keys" in done.stderr


def test_serve_open_refuses_a_non_loopback_host_from_the_environment() -> None:
    done = _serve("--models-dir", "semantic_models", env={"SMQ_OPEN_ACCESS": "1", "SMQ_HOST": "::"})
    assert done.returncode == 2 and "SMQ_ALLOW_OPEN_REMOTE" in done.stderr, done.stderr


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("10.0.0.1", False), ("smq.example.org", False),
])
def test_loopback_hosts(host: str, loopback: bool) -> None:
    from smq_cli.commands.service_commands import is_loopback

    assert is_loopback(host) is loopback


def test_serve_open_on_every_interface_with_allow_open_remote(tmp_path: Path) -> None:
    import httpx

    from .conftest import running_service

    with running_service("--open", "--host", "0.0.0.0", "--allow-open-remote", "--models-dir", "semantic_models") as base:
        assert httpx.get(f"{base}/v1/databases", timeout=10).status_code == 200


def test_mcp_over_http_open_refuses_a_non_loopback_host() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SMQ_")}
    done = subprocess.run([sys.executable, "-m", "smq_cli.main", "mcp", "--transport", "http", "--open", "--host", "0.0.0.0",
                           "--port", "1", "--models-dir", "semantic_models"], env=clean, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "refusing to serve MCP without keys (--open) on 0.0.0.0" in done.stderr and "--allow-open-remote" in done.stderr
def test_serve_on_a_busy_port_says_so_before_serving() -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "smq_cli.main", "serve", "--open", "--host", "127.0.0.1", "--port", str(port)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"port {port} is already in use" in done.stderr and "serving" not in done.stderr
    assert "Traceback" not in done.stderr
