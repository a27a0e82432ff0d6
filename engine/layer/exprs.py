"""Parsing the SQL snippets a layer is made of (`expr`, `on`, `table`, filters).

A plain column name is by far the most common expression; building it directly is ~50x
faster than a full parse, which keeps a 1,000-model layer loading in well under a second. Most of
the others repeat a few shapes with other names: parsed once per shape (shapes.py).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any, TypeVar, cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError

from .shapes import learn, shaped, skeleton

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ExprError(ValueError):
    """A snippet that does not parse; `column` is 1-based within the snippet."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


@lru_cache(maxsize=64)
def _dialect(name: str) -> Dialect:
    return Dialect.get_or_raise(name)


_tools = threading.local()


def parse_statements(text: str, dialect: str) -> list[Any]:
    """`Dialect.parse`, with this thread's tokenizer and parser of the dialect reused: sqlglot builds both anew for
    every text (a tenth of a large layer's load, 21,000 snippets at 3,000 models; a query's filters too); each resets
    itself per text."""
    made: dict[str, tuple[Any, Any]] | None = getattr(_tools, "made", None)
    if made is None:
        made = _tools.made = {}
    pair = made.get(dialect)
    if pair is None:
        d = _dialect(dialect)
        pair = made[dialect] = (d.tokenizer(), d.parser())
    tokenizer, parser = pair
    return cast("list[Any]", parser.parse(tokenizer.tokenize(text), text))


@lru_cache(maxsize=64)
def _keywords(dialect: str) -> frozenset[str]:
    return frozenset(k.upper() for k in _dialect(dialect).tokenizer_class.KEYWORDS)


_POSITIONS = ("line", "col", "start", "end")


_Node = TypeVar("_Node", bound=exp.Expr)


def without_positions(node: _Node) -> _Node:
    """`node` with the parser's token positions dropped from its nodes' meta (in place). Nothing reads them once a
    snippet parsed, and every copy of a node deep-copies its meta dict through Python's `copy` module: on the
    layer's expressions, copied into every compile, that was most of a copy's cost."""
    _strip(node)
    return node


def _strip(node: exp.Expr) -> bool:
    """Drop `node`'s token positions (see without_positions) and its empty comment lists; True when it holds an aggregate, seen in the same walk
    (a measure's expression must not: one walk of the tree instead of two, 18,000 measures at 3,000 models)."""
    aggregate = False
    for n in node.walk():
        if not aggregate and isinstance(n, exp.AggFunc):
            aggregate = True
        if n.comments is not None and not n.comments:  # the parser's [] for none: copied by copy.deepcopy in every copy
            n.comments = None
        meta = n._meta
        if meta is not None:
            for key in _POSITIONS:
                meta.pop(key, None)
            if not meta:
                n._meta = None
    return aggregate


def check_dialect(dialect: str) -> str | None:
    """None if sqlglot knows the dialect, else an error message."""
    try:
        Dialect.get_or_raise(dialect)
    except (ValueError, KeyError):
        return f"unknown dialect '{dialect}'"
    return None


def parse_expression(text: str, dialect: str) -> exp.Expression:
    """One scalar SQL expression; raises ExprError with a readable message."""
    return parse_row_expression(text, dialect)[0]


def parse_row_expression(text: str, dialect: str) -> tuple[exp.Expression, bool]:
    """`parse_expression`, and whether the expression holds an aggregate (`SUM(x)`)."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("expected a SQL expression, got an empty value")
    stripped = text.strip()
    if _IDENT.match(stripped) and stripped.upper() not in _keywords(dialect):
        return exp.column(stripped), False
    shape = skeleton(stripped, dialect)
    if shape is not None:
        found = shaped(shape)
        if found is not None:
            return found
    node, aggregate = _parse_row(stripped, dialect)
    if shape is not None:
        learn(shape, node, aggregate, _parse_stripped)
    return node, aggregate


def _parse_stripped(text: str, dialect: str) -> list[Any]:
    trees = parse_statements(text, dialect)
    for tree in trees:
        if isinstance(tree, exp.Expr):
            _strip(tree)
    return trees


def _parse_row(stripped: str, dialect: str) -> tuple[exp.Expression, bool]:
    """The full parse of a non-empty snippet, checked to be one scalar expression."""
    try:
        parsed = parse_statements(stripped, dialect)
    except (ParseError, TokenError) as exc:
        raise ExprError(_parse_message(exc), _parse_column(exc)) from None
    if len(parsed) != 1:
        raise ExprError("expected one SQL expression, not several statements")
    node = cast("exp.Expression | None", parsed[0])  # every parsed node is an Expression
    if node is None:
        raise ExprError("expected a SQL expression")
    if isinstance(node, exp.Alias):
        raise ExprError("an alias (AS ...) is not allowed here; write only the expression")
    if isinstance(node, (exp.Query, exp.Command)) or not _is_scalar(node):
        raise ExprError(f"expected one SQL expression, not a {node.key.upper()} statement")
    return node, _strip(node)


def columns_read(nodes: list[exp.Expression]) -> dict[str, exp.Identifier]:
    """The column identifiers expressions read, by their engine name (unquoted ones case-folded)."""
    seen: dict[str, exp.Identifier] = {}
    for node in nodes:
        for c in [node] if isinstance(node, exp.Column) else node.find_all(exp.Column):
            ident = c.this
            if isinstance(ident, exp.Identifier):
                seen.setdefault(ident.name if ident.quoted else ident.name.lower(), ident)
    return seen


def parse_filter_expression(text: str, dialect: str) -> exp.Expression:
    """A layer filter (a metric's, an input's, a measure input's, a role's): MetricFlow's templates
    (`{{ Dimension('order__status') }}`, `{{ Metric('bookings', group_by=['listing']) }}`) read as in
    queries (engine/smq/templates.py), then one scalar SQL expression."""
    if isinstance(text, str) and "{{" in text:
        from .templates import TemplateError, template_name, translate

        try:
            text = translate(text, template_name)
        except TemplateError as err:
            raise ExprError(f"has a MetricFlow template that cannot be read: {err}") from None
    return parse_expression(text, dialect)


def parse_query(text: str, dialect: str) -> exp.Query:
    """A SELECT for a derived model (`sql:`)."""
    try:
        nodes = sqlglot.parse(text, read=dialect)
    except (ParseError, TokenError) as exc:
        raise ExprError(_parse_message(exc), _parse_column(exc)) from None
    nodes = [n for n in nodes if n is not None]
    if len(nodes) != 1 or not isinstance(nodes[0], exp.Query):
        raise ExprError("expected exactly one SELECT query")
    return without_positions(nodes[0])


def parse_table(text: str, dialect: str) -> exp.Table:
    """A physical table name, possibly qualified (DB.SCHEMA.TABLE) or quoted."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("expected a table name")
    parts = text.strip().split(".")
    if len(parts) <= 3 and all(_IDENT.match(p) for p in parts) and not _keywords(dialect).intersection(p.upper() for p in parts):
        # plain names (`SCHEMA_1.ORDERS`, most tables) built as the parser builds them: `to_table` makes a tokenizer and
        # a parser per call (0.16 s of a 3,000-model load)
        padded: list[str | None] = [None] * (3 - len(parts))
        catalog, db, name = padded + parts
        return exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(db), catalog=exp.to_identifier(catalog))
    try:
        table = exp.to_table(text.strip(), dialect=_dialect(dialect))
    except (ParseError, TokenError, ValueError) as exc:
        raise ExprError(f"not a table name: {exc}") from None
    if not isinstance(table, exp.Table) or not table.name:
        raise ExprError(f"not a table name: {text!r}")
    return without_positions(table)


def _is_scalar(node: exp.Expression) -> bool:
    return not isinstance(node, (exp.Select, exp.Union, exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alias))


# sqlglot's node classes as a user writes them: "Required keyword: 'expression' missing for <class ...EQ>" -> '='
_OPERATORS = {
    "EQ": "=", "NEQ": "!=", "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<=", "Add": "+", "Sub": "-", "Mul": "*",
    "Div": "/", "Mod": "%", "And": "AND", "Or": "OR", "Not": "NOT", "Between": "BETWEEN", "In": "IN", "Like": "LIKE",
    "ILike": "ILIKE", "Is": "IS", "Neg": "-", "DPipe": "||", "NullSafeEQ": "<=>", "Interval": "INTERVAL",
}
_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_SIDES = {"expression": "has nothing on its right", "this": "has nothing to apply to", "high": "needs `AND high` after its low bound",
          "low": "needs a low bound"}


def describe_parse_problem(description: str) -> str:
    """A parser message in the user's terms: the operator that lacks an operand, never sqlglot's class names."""
    match = _MISSING.search(description)
    if match is None:
        return re.sub(r"<class '[\w.]*?(\w+)'>", r"\1", description)
    keyword, cls = match.groups()
    operator = _OPERATORS.get(cls, cls.upper())
    return f"'{operator}' {_SIDES.get(keyword, f'is missing its {keyword}')}"


def parse_problem(exc: Exception) -> tuple[str, int | None]:
    """(what is wrong, the 1-based column) of a ParseError or TokenError, for a message `does not parse: ...`."""
    errors = getattr(exc, "errors", None)
    if errors:
        first = errors[0]
        desc = describe_parse_problem(first.get("description") or str(exc))
        hl = first.get("highlight")
        col = int(first["col"]) if first.get("col") else None
        return desc + (f" (column {col}, near '{hl}')" if hl and col else f" near '{hl}'" if hl else ""), col
    return describe_parse_problem(str(exc).splitlines()[0]), None


def _parse_message(exc: Exception) -> str:
    return f"does not parse: {parse_problem(exc)[0]}"


def quoted_value_hint(node: exp.Expression) -> str:
    """For a name written in double quotes (`status = "shipped"`): say that SQL reads it as a name, and how to write
    the value; '' for anything else."""
    if isinstance(node, exp.Column) and not node.table and isinstance(node.this, exp.Identifier) and node.this.quoted:
        value = node.this.name.replace("'", "''")
        return f"; \"{node.this.name}\" in double quotes is a name in SQL: write the value in single quotes, '{value}'"
    return ""


def _parse_column(exc: Exception) -> int | None:
    errors = getattr(exc, "errors", None)
    if errors and errors[0].get("col"):
        return int(errors[0]["col"])
    return None


def qualify(node: exp.Expression, alias: str) -> exp.Expression:
    """A copy of a model-level expression with its columns bound to the model's alias."""
    out = node.copy()
    columns = [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column))
    for c in columns:
        c.set("table", exp.to_identifier(alias, quoted=True))
        c.set("db", None)
        c.set("catalog", None)
    return out
