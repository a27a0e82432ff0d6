"""The read-only guard: exactly one SELECT (or set operation, or WITH ... SELECT), nothing else.

It is the first of two locks: every executor has a second one of the engine's own (a read-only
file, connection or transaction; BigQuery's dry-run statement type; for Snowflake, which has no
read-only mode, a SELECT-only role), so a query the guard misses still cannot write. The guard
exists because a read-only connection does not stop file reads (DuckDB's ``read_csv``), network
calls (``dblink``) or sleeps, and because its refusals name exactly what was refused, which an
agent can act on.

The parsed tree is returned so that callers can inspect or rewrite it (table names for access
policies) without parsing twice.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from engine.dialects.denylist import DENIED_TABLES, DENIED_WITH_ARGUMENTS, FILE, FILE_LIKE_TABLE, SIDE_EFFECT, denied_function_reason
from engine.errors import Location
from engine.lru import LruCache
from engine.nesting import too_deep, too_deep_message

from .executors.errors import ReadOnlyViolation, SqlSyntaxError

ONLY = "only one SELECT or WITH query is allowed"

# Statement node types, mapped to the keyword shown in the refusal. Looked up by name so that a
# sqlglot release that drops or renames one does not break the import.
_STATEMENT_KEYWORDS: dict[str, str] = {
    "Insert": "INSERT", "Update": "UPDATE", "Delete": "DELETE", "Merge": "MERGE",
    "Create": "CREATE", "Drop": "DROP", "Alter": "ALTER", "TruncateTable": "TRUNCATE",
    "Copy": "COPY", "Pragma": "PRAGMA", "Attach": "ATTACH", "Detach": "DETACH",
    "Install": "INSTALL", "Set": "SET", "Grant": "GRANT", "Revoke": "REVOKE", "Use": "USE",
    "Transaction": "BEGIN", "Commit": "COMMIT", "Rollback": "ROLLBACK", "Put": "PUT",
    "ListStage": "LIST", "Declare": "DECLARE", "Analyze": "ANALYZE", "Describe": "DESCRIBE",
    "Summarize": "SUMMARIZE", "Kill": "KILL", "Cache": "CACHE", "Uncache": "UNCACHE",
    "LoadData": "LOAD DATA", "Refresh": "REFRESH", "Export": "EXPORT", "Values": "VALUES",
    "Pivot": "PIVOT",
}
_STATEMENT_TYPES: tuple[type[exp.Expression], ...] = tuple(
    getattr(exp, name) for name in _STATEMENT_KEYWORDS if hasattr(exp, name)
) + (exp.Command, exp.DML, exp.DDL)
# Values and Pivot are fine inside a query (FROM (VALUES ...), PIVOT clauses), not as statements.
_NESTED_OK: tuple[type[exp.Expression], ...] = tuple(
    getattr(exp, name) for name in ("Values", "Pivot") if hasattr(exp, name)
)
_SEMICOLON: tuple[type, ...] = (exp.Semicolon,) if hasattr(exp, "Semicolon") else ()
_DIRECTORY_STAGE: tuple[type, ...] = (exp.DirectoryStage,) if hasattr(exp, "DirectoryStage") else ()  # Snowflake
_TOKEN_REPR = re.compile(r"<Token token_type: [^>]*?, text: (.*?), line: [^>]*>")
_QUERY_TOKENS = {TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN, TokenType.FROM}
# MySQL/MariaDB run the text of /*! ... */, /*!50000 ... */ and /*M! ... */ as SQL, and /*+ ... */
# optimizer hints can set session variables (SET_VAR) and the time limit; sqlglot sees comments.
_MYSQL_EXECUTABLE_COMMENT = re.compile(r"/\*(?:M?!|\+)", re.IGNORECASE)
# A quote escaped by a backslash ('it\'s'): where the string ends depends on the server's sql_mode
# (NO_BACKSLASH_ESCAPES ends it at the backslash; ANSI_QUOTES makes "..." an identifier, no escapes).
_MYSQL_BACKSLASH_QUOTE = {q: re.compile(r"(?<!\\)(?:\\\\)*\\" + q) for q in ("'", '"')}
# Escapes an identifier may hide a name behind: PostgreSQL U&"pg\005fread_file" (\hhhh, \+hhhhhh),
# BigQuery `\x5f`, `\u005f`, `\U0000005f`, `\137`.
_PG_UNICODE_ESCAPE = re.compile(r"\\(?:\+([0-9a-fA-F]{6})|([0-9a-fA-F]{4}))")
_C_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|[xX]([0-9a-fA-F]{2})|([0-7]{3}))")


def check_read_only(sql: str, dialect: str) -> exp.Expression:
    """Parse ``sql`` and return its tree if it is one read-only query; raise otherwise.

    Raises ``ReadOnlyViolation`` (code ``not_read_only``) saying what was refused, or
    ``SqlSyntaxError`` (code ``sql_syntax``) with sqlglot's line and column.
    """
    if too_deep(sql):
        raise SqlSyntaxError(too_deep_message("SQL"), code="too_deeply_nested", location=Location(field="sql"))
    try:
        parsed = sqlglot.parse(sql, read=dialect)
        # a trailing comment after the last ';' comes back as a Semicolon node: not a statement
        statements = [s for s in parsed if s is not None and not isinstance(s, _SEMICOLON)]
    except (ParseError, TokenError) as error:
        raise _unparseable(sql, dialect, error) from None
    except RecursionError:
        raise SqlSyntaxError(too_deep_message("SQL"), code="too_deeply_nested", location=Location(field="sql")) from None
    if not statements:
        raise ReadOnlyViolation(f"the query is empty; {ONLY} expected")
    if len(statements) > 1:
        raise ReadOnlyViolation(f"multiple statements are not allowed (found {len(statements)}); {ONLY}")
    tree = statements[0]
    _check_top_level(tree, sql)
    _check_mysql_tokens(sql, dialect)
    _check_nodes(tree, dialect)
    return cast(exp.Expression, tree)


def check_generated(tree: exp.Expr, sql: str, dialect: str) -> None:
    """The guard's checks on a tree this process built (the compiler's) and on ``sql``, the text generated from it.

    Every check of `check_read_only` runs, without parsing: the top level and every node of the tree (what a
    parse of ``sql`` gives back, the generation being faithful: docs/security.md, "Compiled SQL"), and on the
    text what no tree shows (MySQL's executable comments and backslash-escaped quotes, a scan). Raises as
    `check_read_only` does.
    """
    _check_top_level(tree, sql)
    _check_mysql_tokens(sql, dialect)
    _check_nodes(tree, dialect)


def _check_top_level(tree: exp.Expr, sql: str) -> None:
    query = tree
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, (exp.Select, exp.SetOperation)):
        return
    if isinstance(query, exp.Condition):  # `00`, `a + 1`, `'text'`: an expression where a query belongs
        snippet = " ".join(sql.split())
        snippet = snippet if len(snippet) <= 40 else snippet[:37] + "..."
        raise ReadOnlyViolation(f"'{snippet}' is an expression, not a query; {ONLY} (e.g. SELECT ... FROM ...)")
    raise ReadOnlyViolation(f"{_keyword(query, sql)} statements are not allowed; {ONLY}")


# What to check of a node depends on its class only (and then on the node): the checks of each class are found
# once, so a node of a class nothing applies to (a column, a literal, an alias: most of a tree) costs one lookup.
NodeCheck = Callable[[exp.Expr, str], None]
_NODE_CHECKS: dict[type, tuple[NodeCheck, ...]] = {}


def _check_nodes(tree: exp.Expr, dialect: str) -> None:
    known = _NODE_CHECKS
    for node in tree.walk():
        checks = known.get(type(node))
        if checks is None:
            checks = known[type(node)] = _checks_for(type(node))
        for check in checks:
            check(node, dialect)


def _checks_for(cls: type) -> tuple[NodeCheck, ...]:
    checks: list[NodeCheck] = []
    if issubclass(cls, _STATEMENT_TYPES) and not issubclass(cls, _NESTED_OK):
        checks.append(_refuse_statement)
    if issubclass(cls, exp.Into):
        checks.append(_refuse_into)
    if issubclass(cls, exp.Lock):
        checks.append(_refuse_lock)
    if issubclass(cls, exp.Anonymous):
        checks.append(_check_anonymous_call)
    elif issubclass(cls, exp.Func):
        names = [name.lower() for name in cls.sql_names()]
        if any(denied_function_reason(name) or name in DENIED_WITH_ARGUMENTS for name in names):
            checks.append(functools.partial(_check_call, names=names))
    if issubclass(cls, exp.PropertyEQ):
        checks.append(_check_assignment)
    if issubclass(cls, exp.Column):
        checks.append(_check_sequence_call)
    if _DIRECTORY_STAGE and issubclass(cls, _DIRECTORY_STAGE):
        checks.append(_refuse_stage)
    if issubclass(cls, exp.Table):
        checks.append(_check_table)
    return tuple(checks)


def _refuse_statement(node: exp.Expr, dialect: str) -> None:
    where = "inside a WITH clause (data-modifying CTE)" if node.find_ancestor(exp.CTE) else "inside a query"
    raise ReadOnlyViolation(f"{_keyword(node, '')} {where} is not allowed; {ONLY}")


def _refuse_into(node: exp.Expr, dialect: str) -> None:
    raise ReadOnlyViolation(f"SELECT ... INTO is not allowed (it writes a table or file); {ONLY}")


def _refuse_lock(node: exp.Expr, dialect: str) -> None:
    kind = "FOR UPDATE" if node.args.get("update") else "FOR SHARE"
    raise ReadOnlyViolation(f"locking clause {kind} is not allowed; {ONLY}")


def _check_anonymous_call(node: exp.Expr, dialect: str) -> None:
    _check_call(node, dialect, names=_function_names(cast(exp.Func, node)))


def _check_call(node: exp.Expr, dialect: str, *, names: list[str]) -> None:
    for name in names:
        reason = denied_function_reason(name)
        if reason:
            raise ReadOnlyViolation(f"function {name} is not allowed ({reason})")
        if name in DENIED_WITH_ARGUMENTS and _has_arguments(cast(exp.Func, node)):
            raise ReadOnlyViolation(f"function {name} with arguments is not allowed ({DENIED_WITH_ARGUMENTS[name]})")


def _check_assignment(node: exp.Expr, dialect: str) -> None:
    if isinstance(node.this, (exp.Parameter, exp.SessionParameter)):
        raise ReadOnlyViolation(f"assigning a variable ({node.this.sql(dialect)} := ...) is not allowed ({SIDE_EFFECT}); {ONLY}")


def _check_sequence_call(node: exp.Expr, dialect: str) -> None:
    if cast(exp.Column, node).table and not node.this.args.get("quoted") and node.name.lower() == "nextval":
        raise ReadOnlyViolation(f"sequence call {node.sql(dialect)} is not allowed ({SIDE_EFFECT})")


def _refuse_stage(node: exp.Expr, dialect: str) -> None:
    raise ReadOnlyViolation(f"stage listing {node.sql(dialect)} is not allowed ({FILE})")


def _check_table(node: exp.Expr, dialect: str) -> None:
    reason = DENIED_TABLES.get(node.name.lower())
    if reason:
        raise ReadOnlyViolation(f"table {node.name.lower()} is not allowed ({reason})")
    for part in (p.name for p in cast(exp.Table, node).parts if isinstance(p, (exp.Identifier, exp.Var))):
        if part and FILE_LIKE_TABLE.search(part):
            raise ReadOnlyViolation(f"table name '{part}' looks like a file, URL or stage and is not allowed ({FILE})")


def _function_names(node: exp.Func) -> list[str]:
    """The names a call may be written as: the written name for unknown functions, else sqlglot's."""
    if isinstance(node, exp.Anonymous):
        name = node.name
        if "\\" not in name:
            return [name.lower()]
        return [name.lower(), *{_decode(pattern, name) for pattern in (_PG_UNICODE_ESCAPE, _C_ESCAPE)}]
    return [name.lower() for name in type(node).sql_names()]


def _has_arguments(node: exp.Func) -> bool:
    if isinstance(node, exp.Anonymous):
        return bool(node.expressions)
    return any(value is not None and value != [] for value in node.args.values())


def _decode(pattern: re.Pattern[str], name: str) -> str:
    """The name with escapes of that kind replaced by the characters they stand for."""

    def char(match: re.Match[str]) -> str:
        digits = [g for g in match.groups() if g]
        base = 8 if match.lastindex == 4 and pattern is _C_ESCAPE else 16
        try:
            return chr(int(digits[0], base))
        except (ValueError, OverflowError):
            return match.group(0)

    return pattern.sub(char, name).lower()


def _check_mysql_tokens(sql: str, dialect: str) -> None:
    """MySQL/MariaDB: refuse text the server may read as SQL where sqlglot reads a comment or a
    string. Comments are the text between tokens, so '/*!' inside a string literal is fine."""
    if "/*" not in sql and "\\" not in sql:
        return
    from sqlglot.dialects.mysql import MySQL  # here: importing a dialect costs 20 ms, and only MySQL's text needs this

    engine = Dialect.get_or_raise(dialect)
    if not isinstance(engine, MySQL):
        return
    position = 0
    for token in [*engine.tokenize(sql), None]:
        end = len(sql) if token is None else token.start
        found = _MYSQL_EXECUTABLE_COMMENT.search(sql, position, max(position, end))
        if token is not None and token.token_type == TokenType.HINT:  # sqlglot keeps /*+ ... */ as a token
            found = _MYSQL_EXECUTABLE_COMMENT.match(sql, token.start) or found
        if found:
            if found.group(0).endswith("+"):
                raise ReadOnlyViolation(
                    f"optimizer hint comment /*+ ... */ is not allowed (it can set session variables and the time limit); {ONLY}"
                )
            raise ReadOnlyViolation(
                f"executable comment {found.group(0)} ... */ is not allowed (the server runs its contents as SQL); {ONLY}"
            )
        if token is not None:
            text = sql[token.start : token.end + 1]
            quote = text[-1:]
            if "\\" in text and quote in _MYSQL_BACKSLASH_QUOTE and _MYSQL_BACKSLASH_QUOTE[quote].search(text, 0, len(text) - 1):
                raise ReadOnlyViolation(
                    "a quote escaped with a backslash (\\' or \\\") is not allowed in a string: the server reads it "
                    f"differently under sql_mode NO_BACKSLASH_ESCAPES or ANSI_QUOTES; write '' instead; {ONLY}"
                )
            position = token.end + 1


def _keyword(node: exp.Expr, sql: str) -> str:
    """The statement keyword shown in a refusal: DELETE, EXPLAIN, CALL ..."""
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    for cls in type(node).__mro__:
        if cls.__name__ in _STATEMENT_KEYWORDS:
            return _STATEMENT_KEYWORDS[cls.__name__]
    words = sql.split()
    return words[0].upper() if words else type(node).__name__.upper()


def _unparseable(sql: str, dialect: str, error: Exception) -> ReadOnlyViolation | SqlSyntaxError:
    """The refusal for SQL sqlglot cannot parse: a forbidden statement when that is clear, else syntax."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception:  # noqa: BLE001 - untokenizable SQL is a syntax error, reported below
        tokens = []
    if tokens and tokens[0].token_type not in _QUERY_TOKENS:
        return ReadOnlyViolation(f"{tokens[0].text.upper()} statements are not allowed; {ONLY}")
    if any(t.token_type == TokenType.SEMICOLON for t in tokens[:-1]):
        return ReadOnlyViolation(f"multiple statements are not allowed; {ONLY}")
    if any(t.token_type == TokenType.INTO for t in tokens):
        return ReadOnlyViolation(f"SELECT ... INTO is not allowed (it writes a table or file); {ONLY}")
    detail = error.errors[0] if isinstance(error, ParseError) and error.errors else {}
    line, column = detail.get("line"), detail.get("col")
    description = detail.get("description") or str(error).splitlines()[0]
    description = _TOKEN_REPR.sub(lambda m: repr(m.group(1)), description)
    at = f" at line {line}, column {column}" if line else ""
    return SqlSyntaxError(
        f"cannot parse the SQL as {dialect}{at}: {description}",
        location=Location(field="sql", line=line, column=column),
    )


_VERIFIED: LruCache[tuple[str, str], bool] = LruCache(4096)


def ensure_read_only(sql: str, dialect: str) -> None:
    """check_read_only for executors: a text that passed once passes again without a parse.

    BI front ends send the same compiled SQL over and over; parsing it each time is a large share
    of a small query's cost. Only passing verdicts are remembered, keyed by the exact text; texts the
    compiler generated are remembered before they are first sent (`vouch`), so they are never parsed.
    """
    key = (sql, dialect)
    if _VERIFIED.get(key):
        return
    check_read_only(sql, dialect)
    _VERIFIED.put(key, True)


def vouch(tree: exp.Expr, sql: str, dialect: str) -> None:
    """`check_generated`, then ``sql`` is remembered as verified: an executor of this process runs it unparsed.

    For texts generated here from a tree built here (smq_db.compiled); a client's text is never vouched for:
    it is parsed (`check_read_only`), and what runs is the text generated from the checked tree.
    """
    check_generated(tree, sql, dialect)
    _VERIFIED.put((sql, dialect), True)
