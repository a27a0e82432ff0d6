"""Terms: what a question and a model are made of, as comparable word stems.

Identifiers are split where people would read words (`orderDate`, `order_date`, `ORDERDATE2024` ->
order, date, 2024), text is lower-cased, stop words dropped and each word reduced to a stem
(`countries` and `country` meet), so a question and a layer written by different people still
share terms. With a language model, the question's terms are extended by the column names the
model guesses a query would need ("which singers are older than 40" -> `age`, `birth_year`): the
question rarely names the columns it filters on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z0-9]+")

# Question words and glue; domain words (name, count, number, total ...) are kept on purpose: they
# match element names ("name", "countryCount") and carry signal in a schema.
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each either else ever every few find for from further get
give given had has have having he her here hers him his how however i if in into is it its itself just least
let list many me more most much must my neither no nor not now of off on once one only or other our ours out
over own per please same she should show so some such tell than that the their theirs them then there these
they this those through to too under until up us very was we were what when where whether which while who whom
whose why will with within without would yes you your yours return returns display displayed
""".split())

_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"}


def split_identifier(name: str) -> list[str]:
    """An identifier's words, lower-cased: camelCase, PascalCase, snake_case, kebab-case, digits."""
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        words.extend(w.lower() for w in _CAMEL.findall(chunk))
    return words


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stem (plural and common verb/noun endings), cached; no dependency needed."""
    w = _IRREGULAR.get(word, word)
    if len(w) <= 3 or w.isdigit():
        return w
    snowball = _snowball()  # PyStemmer (Snowball), installed with bm25s: better stems when present
    if snowball is not None:
        return snowball.stemWord(w)
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh"), ("s", "")):
        if w.endswith(suffix) and not w.endswith(("ss", "us", "is")):
            w = w[: -len(suffix)] + repl
            break
    for suffix in ("ing", "ed", "er", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=1)
def _snowball() -> Any:
    try:
        import Stemmer
    except ImportError:
        return None
    return Stemmer.Stemmer("english")


def words(text: str) -> list[str]:
    """The words of free text or identifiers: each alphanumeric run split like an identifier."""
    out: list[str] = []
    for token in _WORD.findall(text or ""):
        out.extend(split_identifier(token))
    return out


def terms(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Stems of the meaningful words of `text` (in order, repeats kept: BM25 counts them)."""
    return [stem(w) for w in words(text) if keep_stop_words or w not in STOP_WORDS]


def quoted_values(question: str) -> list[str]:
    """Literal values a question quotes or capitalises mid-sentence ('France', "Star Wars"): likely column values."""
    quoted = re.findall(r"""["“']([^"”']{2,60})["”']""", question)
    capitalised = re.findall(r"(?<![.?!]\s)(?<!^)\b([A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)", question)
    return list(dict.fromkeys(v.strip() for v in quoted + capitalised if v.strip()))


def implied_terms(question: str) -> list[str]:
    """Terms a question implies without saying them: a year (`in 1980`) implies a year or date column."""
    out: list[str] = []
    if re.search(r"\b(1[89]\d\d|20\d\d)\b", question):
        out += ["year", "date"]
    return [stem(w) for w in out]


INFER_SYSTEM = (
    "You help find the database tables a question needs. Given a question and the database's tables, "
    "answer with a JSON list of 3 to 12 short column or table names (snake_case) that a SQL query answering "
    "the question would probably use, including columns the question does not name (filters, join keys, "
    "dates, amounts). Answer with the JSON list only."
)


def inferred_terms(question: str, provider: Any, *, table_names: Iterable[str] = (), timeout_s: float = 30.0) -> list[str]:
    """Column names a language model expects the answer to use, as stems; [] when the call or its answer fails.

    One provider call (agent/providers: the same `complete` interface the agent loop uses, so a scripted
    provider drives it in tests). The answer may be a JSON list or free text; identifiers are taken from either.
    """
    from ..providers.base import Message, ProviderError

    tables = ", ".join(sorted(table_names))
    prompt = f"Tables: {tables}\nQuestion: {question.strip()}" if tables else f"Question: {question.strip()}"
    try:
        response = provider.complete(INFER_SYSTEM, [Message("user", prompt)], [], timeout_s=timeout_s)
    except ProviderError:
        return []
    text = (response.text or "").strip()
    names: list[str] = []
    match = re.search(r"\[.*\]", text, re.S)
    if match:
        try:
            parsed = json.loads(match.group(0))
            names = [str(x) for x in parsed if isinstance(x, (str, int))]
        except json.JSONDecodeError:
            names = []
    if not names:
        names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return terms(" ".join(names))
