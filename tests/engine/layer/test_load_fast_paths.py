"""The load's shortcuts give what the slow paths gave (issue #32 item 4, docs/performance.md "Loading a layer").

A plain table name is built without sqlglot's parser, a plain YAML scalar's tag is worked out only for values, and
the first valid load of a process freezes what it built (engine/layer/longlived.py): each is checked here against
the path it replaces.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sqlglot import exp

from engine.dialects import SUPPORTED_DIALECTS
from engine.layer.exprs import _dialect, parse_table, without_positions
from engine.layer.yamlpos import load_yaml

from ...conftest import DEMO_MODELS, ROOT

TABLES = ["orders", "SCHEMA_1.TABLE_5", "db.sch.tbl", "user", "Order", "first", "values", "x1", "_t", "name", "data",
          "sample", "index", "key", "count", "filter", "date", "MAIN.Orders", "a.b.c.d", '"Quoted".t', "`x`.y", "a..b"]


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
def test_a_plain_table_name_is_the_tree_the_parser_makes(dialect: str) -> None:
    for text in TABLES:
        try:
            parsed = without_positions(exp.to_table(text, dialect=_dialect(dialect)))
        except Exception:  # noqa: BLE001 - a name this dialect cannot read: parse_table must refuse it too
            with pytest.raises(ValueError):
                parse_table(text, dialect)
            continue
        built = parse_table(text, dialect)
        assert (repr(built), built.sql(dialect), list(built.args)) == (repr(parsed), parsed.sql(dialect), list(parsed.args)), text


SCALARS = ["text", "Attribute 0.", "123", "-4", "+5", "0x1F", "0o17", "1_000", "1.5", ".5", "-.inf", ".NaN", "1e3", "true",
           "False", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "", "2024-01-31", "2024-01-31 10:00:00", "12:30",
           "'quoted 1'", '"true"', "!!str 5", "!!int '7'", "1:20", "0.1.2", "+", "nan", "TRUE", "NULL x"]


def test_yaml_values_are_read_as_pyyaml_reads_them_and_keys_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "values.yml"
    lines = [f"k{i}: {text}" for i, text in enumerate(SCALARS)]
    lines += ["items:"] + [f"  - {text}" for text in SCALARS]
    lines += ["flow: {" + ", ".join(f"f{i}: {text}" for i, text in enumerate(SCALARS) if text and not text.startswith("!")) + "}"]
    lines += ["on: 1", "yes: 2", "123: 3", "null: 4"]
    text = "\n".join(lines) + "\n"
    path.write_text(text)
    ours, theirs = load_yaml(path, "values.yml"), yaml.safe_load(text)
    for i, _ in enumerate(SCALARS):  # repr: NaN is not equal to itself; type: True == 1
        assert (repr(ours[f"k{i}"]), type(ours[f"k{i}"])) == (repr(theirs[f"k{i}"]), type(theirs[f"k{i}"])), SCALARS[i]
    assert [(repr(v), type(v)) for v in ours["items"]] == [(repr(v), type(v)) for v in theirs["items"]]
    assert repr(dict(ours["flow"])) == repr(theirs["flow"])
    assert [k for k in ours if k[0] not in "kif"] == ["on", "yes", "123", "null"]  # PyYAML: True, True, 123, None
    assert (ours.value_pos["k3"].line, ours.key_pos["on"].line) == (3, len(lines) - 4)  # still positioned (0-based marks)


FREEZE = r"""
import gc, sys
sys.path.insert(0, '.')
from engine import load_layer, load_layers
from engine.errors import LayerValidationError
try:
    load_layer(sys.argv[1])
except LayerValidationError:
    pass
print(gc.get_freeze_count() > 0, gc.isenabled())
load_layers(sys.argv[2])
print(gc.get_freeze_count() > 0, gc.isenabled())
"""


def test_the_first_valid_load_freezes_what_it_built_and_a_failed_one_does_not(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "models").mkdir(parents=True)
    (broken / "database.yml").write_text("name: broken\ndialect: duckdb\n")
    (broken / "models" / "m.yml").write_text("name: m\ntable: t\ndimensions:\n  - {name: a, type: nope}\n")
    out = subprocess.run([sys.executable, "-c", FREEZE, str(broken), str(DEMO_MODELS)], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(ROOT), "PATH": ""}).stdout.split()
    assert out == ["False", "True", "True", "True"]  # the collector runs again after either load
