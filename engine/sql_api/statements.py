"""What a statement a SQL client sends is: session chatter, a write, a catalog read or a semantic query.

Clients send many statements on connect (`SET extra_float_digits = 3`, `SHOW transaction isolation level`,
`BEGIN`, `SELECT version()` ...) that have nothing to do with the layer; they are recognised by their
first keywords, before sqlglot parses anything. A SELECT is a catalog read when every table it names is
in `pg_catalog` or `information_schema` (or it names none: `SELECT 1`), a semantic query when it names
the layer's tables, and refused when it mixes both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, Tokenizer, TokenType

from .errors import READ_ONLY_TRANSACTION, SYNTAX_ERROR, SqlApiError, unsupported

Kind = Literal["empty", "session", "select"]

CATALOG_SCHEMAS = ("pg_catalog", "information_schema")
SESSION_COMMANDS = ("SET", "RESET", "SHOW", "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "DISCARD",
                    "DEALLOCATE", "CLOSE", "LISTEN", "UNLISTEN", "SAVEPOINT", "RELEASE", "PREPARE", "FETCH")
WRITE_COMMANDS = ("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE", "CREATE", "DROP", "ALTER",
                  "TRUNCATE", "COPY", "GRANT", "REVOKE", "VACUUM", "ANALYZE", "CLUSTER", "REINDEX", "COMMENT",
                  "LOCK", "REFRESH", "SECURITY", "CALL", "DO", "IMPORT", "LOAD", "NOTIFY", "REASSIGN", "EXECUTE")
_READ_STARTS = ("SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN", "(")

_tokenizer = Tokenizer()


@dataclass(frozen=True)
class Statement:
    """One statement of a query string: its text, its kind, its leading words (upper case), its tree."""

    text: str
    kind: Kind
    words: tuple[str, ...] = ()
    tree: exp.Expression | None = None


def _tokens(sql: str) -> list[Token]:
    try:
        return _tokenizer.tokenize(sql)
    except TokenError as err:
        raise SqlApiError(f"syntax error: {err}", SYNTAX_ERROR) from None


def split(sql: str) -> list[str]:
    """The statements of a simple-protocol query string (separated by top-level semicolons)."""
    tokens = _tokens(sql)
    out, start = [], 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            piece = sql[start:token.start].strip()
            if piece:
                out.append(piece)
            start = token.end + 1
    rest = sql[start:].strip()
    if rest and any(t.start >= start for t in tokens):
        out.append(rest)
    return out


def classify(sql: str) -> Statement:
    """The statement's kind; a write is refused here (25006), anything unknown as 0A000."""
    tokens = [t for t in _tokens(sql) if t.token_type != TokenType.SEMICOLON]
    if not tokens:
        return Statement(sql, "empty")
    words = tuple(t.text.upper() for t in tokens[:4])
    first = words[0]
    if first in SESSION_COMMANDS:
        return Statement(sql, "session", words)
    if first in WRITE_COMMANDS:
        raise SqlApiError(f"cannot execute {first} in a read-only transaction: the SQL API of the semantic layer "
                          "only reads (SELECT)", READ_ONLY_TRANSACTION)
    if first == "EXPLAIN":
        raise unsupported("EXPLAIN is not supported here; the SQL an SMQ compiles to is POST /v1/databases/{db}/compile")
    if first not in _READ_STARTS:
        raise unsupported(f"{first} is not supported: the SQL API answers SELECT queries (and SET, SHOW, BEGIN, COMMIT)")
    tree = parse(sql)
    if not isinstance(tree, exp.Query) or _writes(tree):
        raise SqlApiError("cannot execute this statement in a read-only transaction: the SQL API only reads",
                          READ_ONLY_TRANSACTION)
    return Statement(sql, "select", words, tree)


def parse(sql: str) -> exp.Expression:
    try:
        trees = [t for t in sqlglot.parse(sql, read="postgres") if t is not None]
    except (ParseError, TokenError) as err:
        first = (getattr(err, "errors", None) or [{}])[0]
        detail = first.get("description") or str(err).splitlines()[0]
        raise SqlApiError(f"syntax error: {detail}", SYNTAX_ERROR) from None
    except RecursionError:
        raise SqlApiError("the statement nests too deeply to be read", SYNTAX_ERROR) from None
    if len(trees) != 1:
        raise SqlApiError("send one statement at a time", SYNTAX_ERROR)
    return cast(exp.Expression, trees[0])


def _writes(tree: exp.Expression) -> bool:
    return any(isinstance(n, (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter))
               for n in tree.walk())


def catalog_table(table: exp.Table) -> bool:
    """A table of the system catalogs: `pg_catalog.x`, `information_schema.x`, or an unqualified `pg_x`."""
    schema = table.db.lower()
    if schema:
        return schema in CATALOG_SCHEMAS
    return table.name.lower().startswith("pg_")


def relations(tree: exp.Expression) -> tuple[list[exp.Table], list[exp.Table]]:
    """(catalog tables, other tables) that a query reads, CTE names and table functions left out."""
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    catalog: list[exp.Table] = []
    other: list[exp.Table] = []
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier) or (not table.db and table.name in ctes):
            continue
        (catalog if catalog_table(table) else other).append(table)
    return catalog, other


def is_catalog_query(tree: exp.Expression) -> bool:
    """True for a catalog read (or a query of no table); False for a semantic query; mixing both is refused."""
    catalog, other = relations(tree)
    if catalog and other:
        raise unsupported("a query reads either the layer's tables or the system catalogs, not both")
    return not other
