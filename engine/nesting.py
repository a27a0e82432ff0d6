"""A cheap bound on how deeply a text nests parentheses, checked before sqlglot parses it.

sqlglot's parser and generator recurse once or more per nesting level: 20,000 nested parentheses
raise RecursionError after a long parse (and a traceback of hundreds of KB per request). Text that
nests deeper than any real query is refused first; callers still treat a RecursionError from the
parser as the same mistake (NOT NOT NOT ... recurses without a parenthesis).
"""

from __future__ import annotations

import itertools
import re

MAX_NESTING = 256  # parenthesis levels; sqlglot parses and prints ~400 within Python's default recursion limit
_NOT_PAREN = re.compile(r"[^()]+")
_STEP = {"(": 1, ")": -1}


def nesting_depth(text: str) -> int:
    """The deepest parenthesis nesting of `text` (parentheses inside string literals count too)."""
    parens = _NOT_PAREN.sub("", text)
    return max(itertools.accumulate(map(_STEP.__getitem__, parens)), default=0)


def too_deep(text: str, limit: int = MAX_NESTING) -> bool:
    """True when `text` nests parentheses deeper than `limit` (one C-level count for ordinary text)."""
    return text.count("(") > limit and nesting_depth(text) > limit


def too_deep_message(what: str, limit: int = MAX_NESTING) -> str:
    return f"the {what} nests deeper than {limit} levels of parentheses or sub-expressions; write it with less nesting"
