"""A client's catalog query (PostgreSQL) rewritten to run over the catalog tables of catalog.py in DuckDB.

psql's `\\d`, SQLAlchemy's inspector, JDBC's DatabaseMetaData and BI tools write PostgreSQL-only SQL:
`OPERATOR(pg_catalog.~)`, `COLLATE pg_catalog.default`, `'x'::regclass`, `c.oid::regclass`,
`pg_catalog.format_type(...)`, `pg_get_expr(...)`, `current_schema()`. Each is rewritten in the tree
into what it means over these tables (a regclass cast is a look-up in pg_class, `format_type` one in
pg_type, a description a look-up in pg_description, visibility and privileges are true); the tables
move to the schemas `smq_pg_catalog` / `smq_information_schema`; sqlglot prints the result for DuckDB.
Output columns get the names PostgreSQL would give them (`format_type`, `?column?`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlglot import exp

from .errors import UNDEFINED_TABLE, SqlApiError
from .statements import CATALOG_SCHEMAS, catalog_table

SCHEMA_PREFIX = "smq_"
TYPE_NAMES_TABLE = "smq_type_names"  # (oid, display): what format_type prints, beside pg_type
_TRUE_FUNCTIONS = {"pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_has_role",
                   "pg_collation_is_visible", "pg_opclass_is_visible", "pg_conversion_is_visible"}
_FALSE_FUNCTIONS = {"pg_is_in_recovery", "pg_relation_is_publishable", "pg_is_other_temp_schema"}
_NULL_FUNCTIONS = {"pg_get_expr", "pg_get_indexdef", "pg_get_constraintdef", "pg_get_viewdef", "pg_get_triggerdef",
                   "pg_get_functiondef", "pg_get_partkeydef", "pg_get_statisticsobjdef_columns",
                   "pg_get_serial_sequence", "pg_get_function_arguments", "pg_get_function_result",
                   "pg_get_function_identity_arguments", "pg_get_ruledef", "shobj_description",
                   "pg_get_partition_constraintdef", "pg_tablespace_location", "pg_get_statisticsobjdef",
                   "json_build_object", "jsonb_build_object"}  # (identity options of a sequence: none here)
_ZERO_FUNCTIONS = {"pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
                   "pg_database_size", "txid_current", "pg_current_xact_id"}


@dataclass(frozen=True)
class Session:
    """What the session functions answer: current_database(), current_user, pg_backend_pid() ..."""

    database: str
    user: str
    pid: int
    version: str


def rewrite(tree: exp.Expression, session: Session, known_tables: Iterable[tuple[str, str]]) -> exp.Expression:
    """The query as DuckDB runs it over the catalog tables; an unknown catalog table is 42P01."""
    known = set(known_tables)
    tree = tree.copy()
    first = _first_select(tree)
    if first is not None:  # named before the rewrite: version() is about to become a literal
        first.set("expressions", [n if isinstance(n, (exp.Alias, exp.Star)) or (
            isinstance(n, exp.Column) and isinstance(n.this, exp.Star)) else exp.alias_(n, output_name(n), quoted=True)
            for n in first.expressions])
    for table in list(tree.find_all(exp.Table)):
        _move_table(table, known)
    for column in list(tree.find_all(exp.Column)):  # pg_catalog.pg_namespace.nspname (SQLAlchemy's spelling)
        schema = column.args.get("db")
        if schema is not None and schema.name.lower() in CATALOG_SCHEMAS:
            column.set("db", exp.to_identifier(SCHEMA_PREFIX + schema.name.lower()))
            column.set("catalog", None)
    for collate in list(tree.find_all(exp.Collate)):  # COLLATE pg_catalog.default / "C": one collation here
        collate.replace(collate.this)
    for node in reversed(list(tree.walk())):  # children first: a cast of a cast, a collation in an operator
        new = _rewrite_node(cast(exp.Expression, node), session)
        if new is not node:
            if node is tree:
                tree = new
            else:
                node.replace(new)
    return tree


def _first_select(tree: exp.Expression) -> exp.Select | None:
    """The SELECT whose outputs name the result's columns (the leftmost one of a UNION)."""
    while isinstance(tree, exp.SetOperation):
        tree = tree.this
    while isinstance(tree, exp.Subquery):
        tree = tree.this
    return tree if isinstance(tree, exp.Select) else None


def _move_table(table: exp.Table, known: set[tuple[str, str]]) -> None:
    if not isinstance(table.this, exp.Identifier):  # a table function: pg_catalog.generate_series(...)
        if table.args.get("db") is not None and table.db.lower() == "pg_catalog":
            table.set("db", None)
        return
    if not catalog_table(table):
        return
    schema = table.db.lower() or "pg_catalog"
    name = table.name.lower()
    if (schema, name) not in known:
        raise SqlApiError(f'relation "{schema}.{name}" does not exist (this server answers the catalogs BI tools read: '
                          "pg_class, pg_attribute, pg_type, pg_namespace, pg_description, information_schema.columns ...)",
                          UNDEFINED_TABLE)
    table.set("catalog", None)
    table.set("db", exp.to_identifier(SCHEMA_PREFIX + schema))
    table.set("this", exp.to_identifier(name))


def _catalog(name: str, schema: str = "pg_catalog") -> exp.Table:
    return exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(SCHEMA_PREFIX + schema))


def _lookup(column: str, table: str, key: str, value: exp.Expression, extra: exp.Expression | None = None) -> exp.Expression:
    """`(SELECT column FROM smq_pg_catalog.table WHERE key = value [AND extra] LIMIT 1)`."""
    condition: exp.Expression = exp.EQ(this=exp.column(key), expression=value)
    if extra is not None:
        condition = exp.And(this=condition, expression=extra)
    select = exp.select(exp.column(column)).from_(_catalog(table)).where(condition).limit(1)
    return exp.Subquery(this=select)


def _function_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    return None


def _args(node: exp.Expression) -> list[exp.Expression]:
    return list(node.expressions) if isinstance(node, exp.Anonymous) else []


def _rewrite_node(node: exp.Expression, session: Session) -> exp.Expression:
    if isinstance(node, exp.Dot) and isinstance(node.this, (exp.Identifier, exp.Var)) \
            and node.this.name.lower() in CATALOG_SCHEMAS and not isinstance(node.expression, exp.Identifier):
        return node.expression  # pg_catalog.format_type(...): the call, already rewritten (children come first)
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.USERDEFINED and not isinstance(
            node.parent, exp.Cast):
        return _plain_type(_type_name(node))  # pg_catalog.int2 inside int2[]
    if isinstance(node, exp.CurrentVersion):
        return exp.Literal.string(session.version)
    if isinstance(node, exp.CurrentSchema):
        return exp.Literal.string("public")
    if isinstance(node, exp.CurrentDatabase) or (isinstance(node, exp.Column) and not node.table
                                                   and node.name.lower() == "current_catalog"
                                                   and not node.this.quoted):
        return exp.Literal.string(session.database)
    if isinstance(node, (exp.CurrentUser, exp.SessionUser)) or (
            isinstance(node, exp.Column) and not node.table and not node.this.quoted
            and node.name.lower() in ("current_user", "session_user", "user", "current_role")):
        return exp.Literal.string(session.user)
    if isinstance(node, exp.Operator):
        return _operator(node)
    if isinstance(node, exp.Collate):
        return node.this
    if isinstance(node, exp.Cast):
        return _cast(node)
    name = _function_name(node)
    if name is None:
        return node
    args = _args(node)
    if name == "version":
        return exp.Literal.string(session.version)
    if name in ("current_schema",):
        return exp.Literal.string("public")
    if name == "current_schemas":
        return exp.Array(expressions=[exp.Literal.string("pg_catalog"), exp.Literal.string("public")])
    if name in ("current_database", "current_catalog"):
        return exp.Literal.string(session.database)
    if name in ("pg_get_userbyid", "current_user", "session_user"):
        return exp.Literal.string(session.user)
    if name in _TRUE_FUNCTIONS or name.startswith("has_") and name.endswith("_privilege"):
        return exp.true()
    if name in _FALSE_FUNCTIONS:
        return exp.false()
    if name in _NULL_FUNCTIONS:
        return exp.cast(exp.null(), "text")
    if name in _ZERO_FUNCTIONS:
        return exp.Literal.number(0)
    if name == "pg_size_pretty":
        return exp.Literal.string("0 bytes")
    if name == "pg_encoding_to_char":
        return exp.Literal.string("UTF8")
    if name == "pg_backend_pid":
        return exp.Literal.number(session.pid)
    if name == "format_type" and args:
        return exp.Coalesce(this=_lookup("display", TYPE_NAMES_TABLE, "oid", args[0]),
                            expressions=[exp.Literal.string("???")])
    if name == "col_description" and len(args) == 2:
        return _lookup("description", "pg_description", "objoid", args[0],
                       exp.EQ(this=exp.column("objsubid"), expression=args[1]))
    if name == "obj_description" and args:
        return _lookup("description", "pg_description", "objoid", args[0],
                       exp.EQ(this=exp.column("objsubid"), expression=exp.Literal.number(0)))
    if name == "current_setting" and args:
        return _lookup("setting", "pg_settings", "name", args[0])
    if name == "set_config" and len(args) >= 2:
        return args[1]
    if name == "to_regclass" and args:
        return _regclass_oid(args[0])
    if name == "to_regtype" and args:
        return _regtype_oid(args[0])
    if name == "quote_ident" and args:
        return _quote_ident(args[0])
    if name in ("array_upper", "array_length") and args:
        return exp.Anonymous(this="len", expressions=[args[0]])
    if name == "array_lower":
        return exp.Literal.number(1)
    if name == "pg_get_keywords":
        return node
    return node


def _operator(node: exp.Operator) -> Any:
    operator = str(node.args.get("operator") or "").split(".")[-1].strip()
    left, right = node.this, node.expression
    if operator in ("~", "~*", "!~", "!~*"):
        flags = [exp.Literal.string("i")] if "*" in operator else []
        match: exp.Expression = exp.Anonymous(this="regexp_matches", expressions=[left, right, *flags])
        return exp.Not(this=match) if operator.startswith("!") else match
    binary = {"=": exp.EQ, "<>": exp.NEQ, "<": exp.LT, ">": exp.GT, "<=": exp.LTE, ">=": exp.GTE}.get(operator)
    if binary is not None:
        return binary(this=left, expression=right)
    return node


def _type_name(to: exp.Expression) -> str:
    if isinstance(to, exp.ObjectIdentifier):
        return to.name.lower()
    if isinstance(to, exp.DataType):
        kind = to.args.get("kind")
        if to.this == exp.DataType.Type.USERDEFINED and kind is not None:
            return (kind.name if isinstance(kind, exp.Dot) else kind.name if hasattr(kind, "name") else str(kind)).lower()
        return to.sql(dialect="postgres").lower()
    return ""


_TEXT_TYPES = {"text", "name", "regproc", "regprocedure", "regoper", "regoperator", "regconfig", "regdictionary",
               "regrole", "varchar", "char", "bpchar", '"char"'}


def _cast(node: exp.Cast) -> exp.Expression:
    target = _type_name(node.args["to"])
    value = node.this
    if target == "regclass":
        if isinstance(value, exp.Literal) and value.is_string:
            return _regclass_oid(value)
        return _lookup("relname", "pg_class", "oid", value)
    if target == "regtype":
        if isinstance(value, exp.Literal) and value.is_string:
            return _regtype_oid(value)
        return _lookup("display", TYPE_NAMES_TABLE, "oid", value)
    if target == "regnamespace":
        if isinstance(value, exp.Literal) and value.is_string:
            return _lookup("oid", "pg_namespace", "nspname", value)
        return _lookup("nspname", "pg_namespace", "oid", value)
    if target in ("oid", "xid", "cid", "regproc", "int2vector", "oidvector") and target not in _TEXT_TYPES:
        return exp.cast(value, "bigint") if target in ("oid", "xid", "cid") else value
    if target in _TEXT_TYPES:
        return exp.cast(value, "text")
    to = node.args["to"]
    if isinstance(to, exp.DataType) and to.this == exp.DataType.Type.DECIMAL and not to.expressions:
        return exp.cast(value, "double")  # PostgreSQL's numeric has no scale limit; DuckDB's DECIMAL is (18,3)
    kind = node.args["to"]
    if isinstance(kind, exp.DataType) and kind.this == exp.DataType.Type.USERDEFINED:
        return exp.cast(value, _plain_type(target))
    return node


def _regtype_oid(value: exp.Expression) -> exp.Expression:
    """The OID of a type named by its display name (`bigint`) or its typname (`int8`, `pg_catalog.int8`)."""
    if isinstance(value, exp.Literal) and value.is_string:
        value = exp.Literal.string(value.this.strip().lower().removeprefix("pg_catalog.").strip('"'))
    return exp.Coalesce(this=_lookup("oid", TYPE_NAMES_TABLE, "display", value),
                        expressions=[_lookup("oid", "pg_type", "typname", value.copy())])


def _plain_type(name: str) -> exp.DataType:
    try:
        return exp.DataType.build(name, dialect="postgres")
    except Exception:
        return exp.DataType.build("text")


_SYSTEM_OIDS = {"pg_class": 1259, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_namespace": 2615,
                "pg_constraint": 2606, "pg_database": 1262}


def _regclass_oid(value: exp.Expression) -> exp.Expression:
    if isinstance(value, exp.Literal) and value.is_string:
        text = value.this.strip()
        name = text.rsplit(".", 1)[-1] if not text.endswith('"') or text.count('"') <= 2 else text
        if name.startswith('"') and name.endswith('"'):
            name = name[1:-1].replace('""', '"')
        elif not text.split(".")[-1].startswith('"'):
            name = name.lower() if name.lower() == name else name
        if text.lower().removeprefix("pg_catalog.") in _SYSTEM_OIDS:  # classoid = 'pg_catalog.pg_class'::regclass
            return exp.Literal.number(_SYSTEM_OIDS[text.lower().removeprefix("pg_catalog.")])
        exact = _lookup("oid", "pg_class", "relname", exp.Literal.string(name))
        folded = exact.copy()
        folded.this.args["where"].this.set("this", exp.Lower(this=exp.column("relname")))
        folded.this.args["where"].this.set("expression", exp.Literal.string(name.lower()))
        return exp.Coalesce(this=exact, expressions=[folded])
    return _lookup("oid", "pg_class", "relname", value)


def _quote_ident(value: exp.Expression) -> exp.Expression:
    plain = exp.Anonymous(this="regexp_matches", expressions=[value, exp.Literal.string("^[a-z_][a-z0-9_$]*$")])
    quoted = exp.DPipe(this=exp.DPipe(this=exp.Literal.string('"'), expression=exp.Anonymous(
        this="replace", expressions=[value.copy(), exp.Literal.string('"'), exp.Literal.string('""')])),
        expression=exp.Literal.string('"'))
    return exp.Case(ifs=[exp.If(this=plain, true=value.copy())], default=quoted)


def output_name(node: Any) -> str:
    """The name PostgreSQL gives an unaliased output column."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return node.name
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
        return output_name(node.expression)
    if isinstance(node, exp.Cast):
        inner = output_name(node.this)
        return inner if inner != "?column?" else _type_name(node.args["to"]).split("(")[0] or "?column?"
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, (exp.CurrentVersion,)):
        return "version"
    if isinstance(node, exp.CurrentSchema):
        return "current_schema"
    if isinstance(node, exp.CurrentDatabase):
        return "current_database"
    if isinstance(node, exp.CurrentUser):
        return "current_user"
    if isinstance(node, exp.SessionUser):
        return "session_user"
    if isinstance(node, exp.Case):
        return "case"
    if isinstance(node, exp.Array):
        return "array"
    if isinstance(node, exp.Func) and not isinstance(node, exp.Binary):
        return node.sql_name().lower()
    return "?column?"


def pg_output_names(tree: exp.Expression) -> list[str]:
    """The names of the outputs of a (client's, unrewritten) SELECT as PostgreSQL gives them."""
    if not isinstance(tree, exp.Select):
        return []
    return [n.alias if isinstance(n, exp.Alias) else output_name(n) for n in tree.expressions]
