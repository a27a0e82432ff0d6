"""Shared by the python tool's sandbox tests: skip where the host cannot isolate, fail instead in CI."""

from __future__ import annotations

import os

import pytest

from agent.sandbox import isolation_status


def need_sandbox() -> None:
    """Skip (with the probe's reason) on a host without bubblewrap or user namespaces; in CI (CI=true) fail."""
    available, reason = isolation_status()
    if available:
        return
    if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
        pytest.fail(f"CI must run the python tool's sandbox tests: {reason}")
    pytest.skip(f"the python tool's sandbox is not available here: {reason}")


@pytest.fixture()
def sandbox() -> None:
    need_sandbox()
