"""Layer files are bounded before they are trusted: file size, and how much YAML aliases may expand.

The classic "billion laughs" file is 537 bytes: nine levels, each a list of nine aliases of the level
above, 9^9 strings once built. Composing it is cheap (an alias shares its anchor's node); building
plain values from it is what exhausted memory in `smq validate` and `/v1/reload`.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import LayerError
from engine.layer import yamlpos
from engine.layer.yamlpos import MAX_ALIAS_VALUES, MAX_YAML_BYTES, load_yaml

from ...conftest import ROOT
from ..conftest import write_layer


def laughs(levels: int) -> str:
    """The billion-laughs document with `levels` levels (9 gives 9^9 values)."""
    names = "abcdefghi"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip(names, names[1:levels]):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_nested_aliases_past_the_limit_are_refused_where_they_are_used(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yml"
    path.write_text(laughs(6))  # 9^6 = 531,441 values: quick to build without the limit, yet far over it
    with pytest.raises(LayerError) as caught:
        load_yaml(path, "bomb.yml")
    err = caught.value
    assert err.code == "yaml_alias_limit" and f"{MAX_ALIAS_VALUES:,}" in err.message
    assert (err.location.file, err.location.line) == ("bomb.yml", 5)  # e: the level that passes 10,000


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "ok.yml"
    path.write_text("base: &base {type: string, expr: name}\nfirst: *base\nsecond: *base\n")
    data = load_yaml(path, "ok.yml")
    assert data["first"] == data["second"] == {"type": "string", "expr": "name"}
    assert data["second"].pos is not None  # still positioned


def test_a_file_over_the_size_limit_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "big.yml"
    path.write_text("description: '" + "x" * MAX_YAML_BYTES + "'\n")
    with pytest.raises(LayerError) as caught:
        load_yaml(path, "big.yml")
    assert caught.value.code == "yaml_too_large" and caught.value.formatted().startswith("big.yml:1:1: ")
    assert f"{MAX_YAML_BYTES:,}" in caught.value.message


def _limit_memory() -> None:  # the child may not take the machine down if the limit does not hold
    resource.setrlimit(resource.RLIMIT_AS, (1536 * 1024 * 1024, 1536 * 1024 * 1024))


def test_smq_validate_reports_the_537_byte_billion_laughs_as_an_error(tmp_path: Path) -> None:
    root = write_layer(tmp_path, {})
    bomb = root / "mini" / "models" / "laughs.yml"
    bomb.write_text(laughs(9))
    assert bomb.stat().st_size < 600
    done = subprocess.run([sys.executable, "-m", "smq_cli.main", "validate", "--models-dir", str(root)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, preexec_fn=_limit_memory)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "mini/models/laughs.yml:5:4: YAML aliases" in done.stdout, done.stdout


def test_the_alias_count_is_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlpos, "MAX_ALIAS_VALUES", 20)
    text = "x: &x [1, 2]\n" + "".join(f"k{i}: *x\n" for i in range(6))  # 6 x 3 = 18 values again
    for name in ("one.yml", "two.yml"):
        (tmp_path / name).write_text(text)
        assert load_yaml(tmp_path / name, name)["k5"] == [1, 2]
    (tmp_path / "three.yml").write_text(text + "k6: *x\n")  # 21
    with pytest.raises(LayerError, match="more than 20 values"):
        load_yaml(tmp_path / "three.yml", "three.yml")
