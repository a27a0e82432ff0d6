"""Prompt text lives in files beside this module, not in code: edit the words without touching logic."""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template
from typing import Any

import yaml


@cache
def text(name: str) -> str:
    """The text of `agent/prompts/<name>`."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def render(name: str, **values: Any) -> str:
    """A prompt file with `$name` placeholders filled (`$` templates: SQL and JSON braces stay literal)."""
    return Template(text(name)).safe_substitute({k: str(v) for k, v in values.items()})


@cache
def tool_descriptions() -> dict[str, str]:
    """Tool (and `tool.argument`) -> description, from tools.yml."""
    data = yaml.safe_load(text("tools.yml"))
    return {str(k): " ".join(str(v).split()) for k, v in data.items()}
