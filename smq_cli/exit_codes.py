"""The `smq` command's exit codes, in one place (docs/cli.md, "Exit codes", documents them).

`smq eval score` is run by agent/eval/score_cli.py, which may not import smq_cli (the package direction):
it returns 0 and 2 itself, and tests/smq_cli/test_exit_codes.py ties those to OK and BAD_INPUT.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1  # an invalid layer (validate), failed model tests (test), lint findings with --strict, no answer (ask)
    INVALID_LAYER = 1  # alias of FAILED, for `smq validate`
    NO_ANSWER = 1  # alias of FAILED, for `smq ask`
    BAD_INPUT = 2  # a bad query, bad arguments, an unknown or broken database
    NOT_CONFIGURED = 3  # a missing configuration: no model provider, an optional package not installed
    INTERNAL = 4  # a bug: `smq: internal error (please report it): ...`
    INTERRUPTED = 130  # Ctrl-C
