"""Instance selectors: which tasks of a task file a run covers.

A selector is a comma-separated list of terms, each one of:

| term | selects |
|---|---|
| `all` | every task |
| `local054` | that instance (an unknown id is an error naming the nearest ids) |
| `local001-local050` | ids of that prefix whose number lies in the range, ends included |
| `local*`, `sf_bq*` | ids starting with the text before `*` |
| `bq`, `sf_bq` | ids whose alphabetic prefix is exactly that (`bq` is not `bq` + `sf_bq`) |

Terms combine as a union; the result keeps the task file's order, each task once. Ranges compare
numbers, not strings, so `local9-local10` works; both ends must share the prefix. Selectors are
strict on purpose: a typo that silently selected nothing would look like a finished run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import nearest

from .tasks import EvalInputError, Task

_NUMBERED = re.compile(r"^(?P<prefix>.*?)(?P<number>\d+)$")
_PREFIX = re.compile(r"^[A-Za-z_]*")


@dataclass(frozen=True)
class Term:
    """One parsed selector term; `kind` is all | id | range | glob | prefix."""

    kind: str
    text: str
    prefix: str = ""
    low: int = 0
    high: int = 0


def id_prefix(instance_id: str) -> str:
    """The alphabetic start of an id, as the scorer groups them: `sf_bq011` -> `sf_bq`."""
    match = _PREFIX.match(instance_id)
    return (match.group(0).rstrip("_") if match else "") or "other"


def _split_numbered(text: str, term: str) -> tuple[str, int]:
    match = _NUMBERED.match(text)
    if not match or not match.group("prefix"):
        raise EvalInputError(f"selector term '{term}': '{text}' is not an id with a number (like local001)")
    return match.group("prefix"), int(match.group("number"))


def parse_term(term: str, known: set[str]) -> Term:
    """One term; `known` (the task file's ids) tells an id from a bare prefix."""
    text = term.strip()
    if not text:
        raise EvalInputError("selector has an empty term (two commas, or a trailing comma)")
    if text.lower() == "all":
        return Term("all", text)
    if text in known:
        return Term("id", text)
    if text.endswith("*"):
        stem = text[:-1]
        if not stem or "*" in stem:
            raise EvalInputError(f"selector term '{text}': use a prefix followed by one '*', e.g. local*")
        return Term("glob", text, prefix=stem)
    if "-" in text:
        start, _, end = text.partition("-")
        (p1, low), (p2, high) = _split_numbered(start.strip(), text), _split_numbered(end.strip(), text)
        if p1 != p2:
            raise EvalInputError(f"selector term '{text}': both ends of a range need the same prefix ('{p1}' vs '{p2}')")
        if low > high:
            raise EvalInputError(f"selector term '{text}': the range runs backwards ({low} > {high})")
        return Term("range", text, prefix=p1, low=low, high=high)
    if _NUMBERED.match(text):
        return Term("id", text)  # looks like an id but is not one: reported with suggestions below
    return Term("prefix", text, prefix=text)


def nearest_ids(instance_id: str, known: set[str], n: int = 3) -> list[str]:
    """Ids to suggest for an unknown one: same prefix and the closest numbers first, else by spelling.

    `bq010` should suggest bq011 and bq009, not bq100, which only looks alike letter by letter.
    """
    match = _NUMBERED.match(instance_id)
    if match:
        prefix, number = match.group("prefix"), int(match.group("number"))
        numbered = [(abs(int(m.group("number")) - number), k) for k in known
                    if (m := _NUMBERED.match(k)) and m.group("prefix") == prefix]
        if numbered:
            return [k for _, k in sorted(numbered)[:n]]
    return nearest(instance_id, known, n)


def _matches(term: Term, task: Task) -> bool:
    iid = task.instance_id
    if term.kind == "all":
        return True
    if term.kind == "id":
        return iid == term.text
    if term.kind == "glob":
        return iid.startswith(term.prefix)
    if term.kind == "prefix":
        return id_prefix(iid) == term.prefix
    match = _NUMBERED.match(iid)
    return match is not None and match.group("prefix") == term.prefix and term.low <= int(match.group("number")) <= term.high


def select_tasks(tasks: Sequence[Task], selector: str) -> list[Task]:
    """The tasks a selector names, in file order; raises EvalInputError for terms that select nothing."""
    if not selector or not selector.strip():
        raise EvalInputError("empty selector: name instances (local054), ranges (local001-local050), prefixes (local*, bq) or all")
    known = {t.instance_id for t in tasks}
    terms = [parse_term(part, known) for part in selector.split(",")]
    unknown = [t.text for t in terms if t.kind == "id" and t.text not in known]
    if unknown:
        parts = []
        for iid in unknown:
            hints = nearest_ids(iid, known)
            parts.append(f"{iid}" + (f" (did you mean {' or '.join(hints)}?)" if hints else ""))
        raise EvalInputError(f"unknown instance id(s) in the task file: {'; '.join(parts)}")
    for term in terms:
        if not any(_matches(term, t) for t in tasks):
            prefixes = sorted({id_prefix(t.instance_id) for t in tasks})
            raise EvalInputError(f"selector term '{term.text}' selects no task (id prefixes in this file: {', '.join(prefixes)})")
    wanted = {t.instance_id for t in tasks if any(_matches(term, t) for term in terms)}
    return [t for t in tasks if t.instance_id in wanted]
