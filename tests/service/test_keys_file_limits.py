"""The API keys file is read with the layer loader's limits: a YAML bomb there is refused with its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.auth import KeyStore
from service.errors import ServiceConfigError


def test_a_yaml_bomb_in_the_keys_file_is_refused(tmp_path: Path) -> None:
    rows = ["keys:", "  - &a [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"  - &{b} [{', '.join([f'*{a}'] * 10)}]" for a, b in zip("abcdefgh", "bcdefghi")]
    keys = tmp_path / "keys.yml"
    keys.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(ServiceConfigError) as refused:
        KeyStore.load(keys)
    assert "YAML aliases" in refused.value.message and refused.value.location.line == 5


def test_an_unreadable_keys_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ServiceConfigError) as refused:
        KeyStore.load(tmp_path / "missing.yml")
    assert refused.value.message.startswith(f"cannot read the API keys file {tmp_path / 'missing.yml'}")
