"""Readable, valid names from physical ones, and physical names written so that they parse.

The engine's names are `[A-Za-z][A-Za-z0-9_]*` without `__`; physical tables and columns can be
anything (`Order Details`, `2019 sales`, `CustomerId`, `order`). Models get PascalCase plus
`Model`, elements lowerCamelCase, edge keys snake_case; `table:` and `expr:` text is quoted only
where the dialect needs it, checked by parsing it back the way the loader will.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from sqlglot import exp

from engine.dialects import dialect as dialect_of, introspectable
from engine.layer.exprs import ExprError, parse_expression, parse_table

_TOKEN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# SQLite-only reserved words; the rest come from sqlglot's MySQL and DuckDB generators (see _reserved)
_EXTRA_RESERVED = {"abort", "autoincrement", "glob", "indexed", "isnull", "notnull", "pragma", "vacuum", "transaction",
                   "temp", "temporary", "raise", "regexp", "exists", "escape", "collate", "offset", "limit", "order", "group"}
ID_SUFFIXES = ("id", "ids", "code", "key", "ref", "no", "num", "fk", "pk")
STOPWORDS = {"the", "a", "an", "of", "in", "on", "for", "to", "by", "and", "or", "per", "is", "its", "this", "at", "with"}

# irregular plurals that appear in table names; anything else follows the usual English rules
_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "mice": "mouse", "geese": "goose",
              "feet": "foot", "teeth": "tooth", "data": "data", "media": "media", "criteria": "criterion", "series": "series",
              "species": "species", "news": "news", "status": "status", "bus": "bus", "analysis": "analysis"}


_IE_WORDS = {"movies", "cookies", "calories", "zombies", "rookies", "brownies", "genies", "hippies", "selfies", "prairies"}


def ascii_text(text: str) -> str:
    """Accents dropped (`Café` -> `Cafe`), other non-ASCII letters removed."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def tokens(name: str) -> list[str]:
    """Words of a physical name: `Song_release_year`, `CustomerID`, `order items` -> lower-case words."""
    return [t.lower() for t in _TOKEN.findall(ascii_text(name))]


def singular(word: str) -> str:
    """A word's singular form, good enough for table names (`categories` -> `category`)."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies"):
        return w[:-1] if w in _IE_WORDS or len(w) <= 4 else w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses")):
        return w[:-2]
    if w.endswith("uses") and w[-5] not in "aeiou":  # statuses, campuses, buses (not houses, causes)
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


def plural(word: str) -> str:
    w = singular(word)
    for plural_form, single in _IRREGULAR.items():
        if single == w and plural_form != w:
            return plural_form
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        return w[:-1] + "ies"
    if w.endswith(("s", "x", "z", "ch", "sh")):
        return w + "es"
    return w + "s"


def singular_tokens(name: str) -> list[str]:
    """The words of a table name with the last one singular: `order_items` -> [order, item]."""
    words = tokens(name)
    return words[:-1] + [singular(words[-1])] if words else []


def base_tokens(column: str) -> list[str]:
    """A key column's words without its identifier suffix: `customer_id` -> [customer]."""
    words = tokens(column)
    while len(words) > 1 and words[-1] in ID_SUFFIXES:
        words = words[:-1]
    return words


_NOT_IDS = {"paid", "grid", "said", "valid", "invalid", "void", "avoid", "fluid", "liquid", "rapid", "solid", "hybrid", "acid",
            "humid", "vivid", "candid", "squid", "pyramid", "orchid", "david", "madrid", "android", "asteroid", "tabloid", "braid",
            "afraid", "maid", "raid", "laid", "mermaid", "overlaid", "prepaid", "unpaid"}


def identifier_word(word: str) -> bool:
    """Whether a name's last word marks an identifier: `id`, `code`, `key` ..., or glued like `msid`, `custid`."""
    word = word.lower()
    return word in ID_SUFFIXES or (word.endswith("id") and word not in _NOT_IDS)


def pascal(words: list[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


def camel(words: list[str]) -> str:
    out = words[0] if words else ""
    for prev, word in zip(words, words[1:]):
        out += word if prev.isdigit() else word[:1].upper() + word[1:]  # `2nd` stays `2nd`
    return out


def model_name(table: str) -> str:
    """`order_items` -> `OrderItemsModel`; a name starting with a digit gets a `T`."""
    words = tokens(table) or ["table"]
    name = pascal(words)
    if not name[:1].isalpha():
        name = "T" + name
    if not name.endswith("Model"):
        name += "Model"
    return name


def element_name(column: str) -> str:
    """`Song_release_year` -> `songReleaseYear`; `2nd line` -> `n2ndLine`."""
    words = tokens(column) or ["column"]
    name = camel(words)
    return name if name[:1].isalpha() else "n" + name


def edge_key(words: list[str]) -> str:
    key = "_".join(w for w in words if w)
    key = re.sub(r"_+", "_", key).strip("_")
    if not key or not key[0].isalpha():
        key = "to_" + key if key else "link"
    return key


def unique(name: str, taken: set[str], *, style: str = "camel") -> str:
    """`name`, or `name2`, `name3`... whichever is free; records the choice in `taken`."""
    candidate, n = name, 2
    while candidate in taken or candidate.lower() in {t.lower() for t in taken if style == "ci"}:
        candidate = f"{name}{'_' if style == 'snake' else ''}{n}"
        n += 1
    taken.add(candidate)
    return candidate


def words_text(name: str) -> str:
    """`songReleaseYear` or `Song_release_year` -> `song release year` (for descriptions)."""
    return " ".join(tokens(name))


# -- physical names as the loader will read them ------------------------------------------------


@lru_cache(maxsize=1)
def _reserved() -> frozenset[str]:
    """Words no dialect we write for accepts as a bare column (`t.order` fails in SQLite)."""
    from sqlglot.dialects.dialect import Dialect

    words = set(_EXTRA_RESERVED)
    for engine in introspectable():  # the engines `smq init` writes layers for
        words |= {w.lower().removesuffix("_p") for w in Dialect.get_or_raise(engine.name).generator_class.RESERVED_KEYWORDS}
    return frozenset(words)


def _plain_ok(name: str, dialect: str) -> bool:
    if not _SIMPLE.match(name) or name.lower() in _reserved():
        return False
    return not (dialect_of(dialect).folds_unquoted_to_lower and name != name.lower())


@lru_cache(maxsize=4096)
def column_sql(name: str, dialect: str) -> str:
    """A column reference that parses back to exactly `name` in `dialect` (quoted only if needed)."""
    if _plain_ok(name, dialect):
        try:
            node = parse_expression(name, dialect)
            if isinstance(node, exp.Column) and not node.table and node.name == name:
                return name
        except ExprError:
            pass
    return exp.column(name, quoted=True).sql(dialect=dialect)


@lru_cache(maxsize=4096)
def table_sql(name: str, dialect: str) -> str:
    """A table reference that parses back to exactly `name` (`"Order Details"`, `` `order` ``)."""
    if _plain_ok(name, dialect):
        try:
            node = parse_table(name, dialect)
            if node.name == name and not node.db:
                return name
        except ExprError:
            pass
    return exp.to_identifier(name, quoted=True).sql(dialect=dialect)


def column_node(name: str) -> exp.Column:
    """A quoted column node (for SQL the scaffolder runs itself)."""
    return exp.column(name, quoted=True)


def table_node(name: str, schema: str | None = None) -> exp.Table:
    return exp.Table(this=exp.to_identifier(name, quoted=True), db=exp.to_identifier(schema, quoted=True) if schema else None)
