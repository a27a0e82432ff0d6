"""The scorer's comparison as plan voting's equivalence: the surfaces (CLI `smq ask`, REST /ask, the eval
runner) pass it to the agent, which never imports agent/eval itself (a `forbidden` import contract in
pyproject.toml)."""

from __future__ import annotations

import logging

from ..voting import Equivalent, plain_equivalent

log = logging.getLogger("smq.agent")


def scorer_equivalence() -> Equivalent:
    """The scorer's `results_equivalent`; without pandas (the `eval` extra) a plain comparison of sorted rows."""
    try:
        from .compare import results_equivalent

        return results_equivalent
    except ImportError:  # pragma: no cover - pandas is part of the test install
        log.warning("pandas is not installed: plan voting compares sorted rows instead of the scorer's rules")
        return plain_equivalent
