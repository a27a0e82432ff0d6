"""Facts the docs state about the engine, checked against it (lists of dialects and aggregations, the
conversion example's properties, demo data quoted in the text)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from engine.dialects import SUPPORTED_DIALECTS
from engine.layer.model import AGGREGATIONS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_cli_md_lists_every_supported_dialect() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert f"`{SUPPORTED_DIALECTS!r}`" in text
    [line] = [m.group(0) for m in re.finditer(r"- `--dialect`: one of (.|\n)*?\(case-insensitive\)", text)]
    assert re.findall(r"`(\w+)`", line.split("one of", 1)[1]) == list(SUPPORTED_DIALECTS)


def test_docs_list_every_aggregation_in_the_invalid_aggregation_message() -> None:
    listing = ", ".join(AGGREGATIONS)
    errors_md = (DOCS / "errors.md").read_text(encoding="utf-8")
    [row] = [line for line in errors_md.splitlines() if line.startswith("| `invalid_aggregation`")]
    assert f"other than {listing} |" in row
    for doc in ("semantic-layer.md", "cli.md"):
        quoted = re.findall(r"unknown aggregation 'cnt' \(use ([^)]*)\)", (DOCS / doc).read_text(encoding="utf-8"))
        assert quoted and all(q == listing for q in quoted), (doc, quoted)


def test_the_conversion_example_takes_its_properties_from_the_right_models() -> None:
    text = (DOCS / "semantic-layer.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL) if "constant_properties" in b and "type: conversion" in b]
    assert blocks
    for block in blocks:
        for metric in yaml.safe_load(block):
            base_model = metric["base_measure"].split("__")[0]
            conversion_model = metric["conversion_measure"].split("__")[0]
            for pair in metric.get("constant_properties", []):
                assert pair["base_property"].split("__")[0] == base_model, pair
                assert pair["conversion_property"].split("__")[0] == conversion_model, pair


def test_quoted_demo_facts() -> None:
    smq_md = (DOCS / "smq.md").read_text(encoding="utf-8")
    assert "2024-02-05 to 02-11 have no orders in the demo" in smq_md  # the demo has no order from 02-05 to 02-11
    layer_md = (DOCS / "semantic-layer.md").read_text(encoding="utf-8")
    assert "every day from the first to the last order" not in layer_md  # join_to_timespine lists every spine day
    errors_md = (DOCS / "errors.md").read_text(encoding="utf-8")
    [row] = [line for line in errors_md.splitlines() if line.startswith("| `unsupported_offset`")]
    assert row.endswith("where any nesting is exact` |")
