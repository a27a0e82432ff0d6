"""Expression shapes: a layer's expressions that differ only in their column names are parsed once.

A large layer repeats a few shapes thousands of times (`CAST(created_at AS DATE)`, `amount * (1 - COALESCE(discount,
0))`, `SUM(x)`); a full sqlglot parse is ~40 µs each, a copy of a parsed tree a few. The *skeleton* of a text is the
text with each plain name replaced by a numbered placeholder (`zqz0`, `zqz1` ..., one number per distinct name: `x + x`
and `x + y` differ); it is parsed once per dialect, and a text with the same skeleton gets a copy of that tree with
its own names put into the placeholders' Identifier nodes.

Why that equals a full parse. Two texts with one skeleton differ only in the replaced words, so they parse alike
provided (1) the tokenizer makes the same token, a VAR with the word's text, of a real name and of a placeholder, and
(2) the parser's decisions do not depend on those texts. (1): only ASCII texts without quotes, comments, parameters,
braces or brackets are shaped (`_SAFE`); a word is replaced only when it is a whole run of `[A-Za-z0-9_]` that starts
with a letter or `_`, does not follow `<digit>.` (part of a number, `1.e5`) and is no word of any of the dialect
tokenizer's KEYWORDS (multi-word ones too). (2): sqlglot's parser compares a VAR's text with constant words (FIRST,
NULLS, IGNORE, ZONE, units, function names ...) and with other names (lambda parameters). So a word is never replaced
when its uppercase is one the parser could compare with — every word of every string literal in sqlglot's parser,
tokenizer, dialect and expression sources, every string of the dialect parser's and tokenizer's upper-case tables
(FUNCTIONS ...), every DataType name (`_reserved`; without sqlglot's sources nothing is shaped) — nor when it names a
function (a word before `(`); and placeholders keep which names are equal (one number per name; a text spelling one
name in two cases, `X` and `x`, is not shaped). What the parser does with a copied text is checked on the skeleton's
tree: each placeholder must end up as whole unquoted Identifier texts and nowhere else (not upper-cased into a Var,
not inside another string). And the first text of each skeleton is parsed in full and compared with the renamed
skeleton tree node for node, texts exactly; a skeleton that differs, or does not parse, is never used. A text whose
skeleton is not known yet is parsed in full, so its errors (every error) are the full parse's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from ..dialects import SUPPORTED_DIALECTS

_SAFE = re.compile(r"[A-Za-z0-9_ \t\r\n.,()+\-*/%<>=!|&^~:]*\Z")  # no quote, comment mark (#), parameter, brace, bracket
_SPLIT = re.compile(r"([A-Za-z0-9_]+)")
_PREFIX = "zqz"  # the placeholders' (a text holding it is never shaped, so a placeholder is never a real word)
_PLACEHOLDER = re.compile(_PREFIX + r"(\d+)\Z")
MAX_NAMES = 64  # names replaced in one text
MAX_SHAPES = 4096  # skeletons remembered per process
WARMUP = 256  # texts parsed in full before shapes are tried: a small layer never pays for `_reserved` (~15 ms)
NEVER = object()  # a skeleton whose tree is not the full parse's: always parse in full

Shape = tuple[str, str, tuple[str, ...]]  # (dialect, skeleton, the names it stands for, in order)
_shapes: dict[tuple[str, str], Any] = {}  # (dialect, skeleton) -> (tree, paths to its placeholders, aggregate) | NEVER
_lock = threading.Lock()
_calls = [0]


@cache
def _source_words() -> frozenset[str] | None:
    """Every word of every string literal of sqlglot's parsing code (upper-cased); None without its sources."""
    root = Path(sqlglot.__file__).parent
    files = [*root.glob("*.py"), *(p for sub in ("parsers", "dialects", "expressions") for p in (root / sub).glob("*.py"))]
    if not (root / "parser.py").is_file() or not (root / "tokens.py").is_file():
        return None
    literal = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_ ]*)["']""")
    words: set[str] = set()
    for path in files:
        for text in literal.findall(path.read_text(encoding="utf-8")):
            words.update(text.upper().split())
    return frozenset(words)


@cache
def _reserved(dialect: str) -> frozenset[str] | None:
    """The words never replaced in `dialect` (module docstring, (1) and (2)); None: shape nothing."""
    source = _source_words()
    if source is None or dialect not in SUPPORTED_DIALECTS:
        return None
    d = Dialect.get_or_raise(dialect)
    words = set(source)
    words.update(part for key in d.tokenizer_class.KEYWORDS for part in key.upper().split())
    for cls in (d.parser_class, d.tokenizer_class):
        for attr in dir(cls):
            table = getattr(cls, attr, None) if attr.isupper() else None
            if isinstance(table, (dict, set, frozenset, tuple, list)):
                words.update(k.upper() for k in table if isinstance(k, str))
    words.update(t.upper() for t in exp.DataType.Type.__members__)
    if any(f"{_PREFIX}{i}".upper() in words for i in range(MAX_NAMES)):  # pragma: no cover - a sqlglot that used them
        return None
    return frozenset(words)


def skeleton(text: str, dialect: str) -> Shape | None:
    """`text`'s skeleton and the names its placeholders stand for; None when it cannot be shaped faithfully (or
    before WARMUP texts)."""
    if _calls[0] < WARMUP:
        _calls[0] += 1
        return None
    if not _SAFE.match(text) or "--" in text or "/*" in text or _PREFIX in text.lower() or ":" in text.replace("::", ""):
        return None
    reserved = _reserved(dialect)
    if reserved is None:
        return None
    parts = _SPLIT.split(text)  # separators at even indices, word runs at odd ones
    names: list[str] = []
    numbers: dict[str, int] = {}  # lower-cased name -> its placeholder's number
    for i in range(1, len(parts), 2):
        word = parts[i]
        upper = word.upper()
        if word[0].isdigit() or upper in reserved or parts[i + 1].lstrip()[:1] == "(":  # a number, a word, a function
            continue
        if parts[i - 1] == "." and i > 1 and parts[i - 2][0].isdigit():  # `1.e5`: part of a number
            continue
        lower = word.lower()
        number = numbers.get(lower)
        if number is None:
            number = numbers[lower] = len(names)
            names.append(word)
        elif names[number] != word:  # `X` and `x`: the same name to some comparisons, not to others
            return None
        parts[i] = f"{_PREFIX}{number}"
    if len(names) > MAX_NAMES:
        return None
    return dialect, "".join(parts), tuple(names)


def shaped(shape: Shape) -> tuple[exp.Expression, bool] | None:
    """The parse of the text `shape` came from, from its skeleton's tree; None when the skeleton is not (yet) known."""
    entry = _shapes.get(shape[:2])
    if entry is None or entry is NEVER:
        return None
    tree, paths, aggregate = entry
    return _renamed(tree, paths, shape[2]), aggregate


def learn(shape: Shape, node: exp.Expression, aggregate: bool, parse: Callable[[str, str], list[Any]]) -> None:
    """Remember `shape`'s skeleton after a full parse of its text gave `node`: its tree if renaming it gives `node`
    exactly, else NEVER. `parse`: the full parse, its trees left as `node` is (exprs._strip)."""
    key = shape[:2]
    if key in _shapes or len(_shapes) >= MAX_SHAPES:
        return
    entry: Any = NEVER
    try:
        trees = parse(shape[1], shape[0])
    except Exception:  # noqa: BLE001 - any failure to parse the skeleton: never shape it
        trees = []
    if len(trees) == 1 and isinstance(trees[0], exp.Expression):
        tree = trees[0]
        paths = _placeholders(tree, len(shape[2]))
        if paths is not None and same(_renamed(tree, paths, shape[2]), node):
            entry = (tree, paths, aggregate)
    with _lock:
        _shapes.setdefault(key, entry)


Route = tuple[tuple[str, int | None], ...]  # from the root: (arg, index in a list arg or None) per step


def _placeholders(tree: exp.Expression, count: int) -> list[tuple[int, Route]] | None:
    """(placeholder number, path to its Identifier) for each place a placeholder is; None unless every placeholder
    is there, each place is an unquoted Identifier's whole text and no other text of the tree mentions one."""
    found: list[tuple[int, Route]] = []
    stack: list[tuple[exp.Expr, Route]] = [(tree, ())]
    while stack:
        n, path = stack.pop()
        if n.comments:
            return None
        for key, value in n.args.items():
            for i, v in enumerate(value) if isinstance(value, list) else [(None, value)]:
                if isinstance(v, exp.Expr):
                    stack.append((v, (*path, (key, i))))
                    continue
                if not isinstance(v, str) or _PREFIX not in v.lower():
                    continue
                m = _PLACEHOLDER.match(v)
                if not (m and type(n) is exp.Identifier and key == "this" and not n.args.get("quoted")):
                    return None
                found.append((int(m.group(1)), path))
    if {number for number, _ in found} != set(range(count)):
        return None
    return found


def _renamed(tree: exp.Expression, paths: list[tuple[int, Route]], names: tuple[str, ...]) -> exp.Expression:
    """A copy of the skeleton's tree with the real names in its placeholders' Identifiers."""
    out = cast("exp.Expression", tree.__deepcopy__(None))  # what `copy()` calls, without copy.deepcopy's memo around it
    for number, path in paths:
        n: exp.Expr = out
        for key, i in path:
            n = n.args[key] if i is None else n.args[key][i]
        n.args["this"] = names[number]  # a str arg: no parent to set
    return out


def same(a: Any, b: Any) -> bool:
    """Node for node and text for text (sqlglot's `==` ignores the case of names), comments, meta and types included."""
    if isinstance(a, exp.Expr) or isinstance(b, exp.Expr):
        if type(a) is not type(b) or a.comments != b.comments or a._meta != b._meta or a.args.keys() != b.args.keys() \
                or (a._type is None) is not (b._type is None) or (a._type is not None and not same(a._type, b._type)):
            return False
        return all(same(v, b.args[k]) for k, v in a.args.items())
    if isinstance(a, list) or isinstance(b, list):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
