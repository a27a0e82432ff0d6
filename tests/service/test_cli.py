"""`smq keys hash|new` and `smq serve`'s refusal to start unsecured."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from service.auth import KeyStore, hash_key
from smq_cli.main import main


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
