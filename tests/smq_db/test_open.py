"""open_for_layer: the executor of a layer's database, the demo database built first on a fresh clone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from engine import load_layer
from smq_db.executors import BackendUnavailable, ConfigError
from smq_db.open import ensure_demo_for, open_for_layer

SHOP = Path(__file__).resolve().parents[2] / "semantic_models" / "shop"


def _copy_shop(tmp_path: Path, **connection: object) -> Path:
    """The demo layer in a fresh folder (no data file yet), its connection block changed as given."""
    folder = tmp_path / "shop"
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns("data"))
    config = yaml.safe_load((folder / "database.yml").read_text(encoding="utf-8"))
    config["connection"].update(connection)
    (folder / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


def test_a_fresh_demo_layer_gets_its_database_built_and_opened(tmp_path: Path) -> None:
    folder = _copy_shop(tmp_path)
    layer = load_layer(folder)
    assert not (folder / "data" / "shop.duckdb").exists()
    executor = open_for_layer(layer)
    try:
        assert executor.backend == "duckdb"
        assert executor.execute("SELECT COUNT(*) FROM orders").rows[0][0] > 0
    finally:
        executor.close()
    assert (folder / "data" / "shop.duckdb").is_file()


def test_a_demo_that_cannot_be_built_is_backend_unavailable_naming_the_layer(tmp_path: Path) -> None:
    layer = load_layer(_copy_shop(tmp_path, demo="no_such_demo"))
    with pytest.raises(BackendUnavailable, match="cannot build the demo database of 'shop'.*no_such_demo"):
        ensure_demo_for(layer)
    with pytest.raises(BackendUnavailable, match="no_such_demo"):
        open_for_layer(layer)


def test_without_demo_a_missing_file_is_not_built(tmp_path: Path) -> None:
    folder = _copy_shop(tmp_path, demo=None, backend="sqlite", path="data/shop.sqlite")
    layer = load_layer(folder)
    with pytest.raises(BackendUnavailable, match="not found"):
        open_for_layer(layer)
    assert not (folder / "data").exists()


def test_an_explicit_connection_replaces_the_layers_own(tmp_path: Path, demo_files: dict[str, Path]) -> None:
    layer = load_layer(_copy_shop(tmp_path, demo=None))
    executor = open_for_layer(layer, connection={"backend": "sqlite", "path": str(demo_files["sqlite"])},
                              default_timeout_s=5)
    try:
        assert executor.execute("SELECT COUNT(*) FROM customers").rows[0][0] > 0
    finally:
        executor.close()
    with pytest.raises(ConfigError, match="unknown backend"):
        open_for_layer(layer, connection={"backend": "oracle"})
