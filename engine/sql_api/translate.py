"""A semantic SELECT (PostgreSQL dialect, parsed by sqlglot) -> the SMQ `/query` would run, and its columns.

    SELECT channel, DATE_TRUNC('month', "orderDate") AS month, MEASURE("orderCount") AS orders
    FROM "OrdersModel" WHERE status = 'shipped' GROUP BY 1, 2 HAVING MEASURE("orderCount") > 10
    ORDER BY orders DESC LIMIT 20

becomes `{"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel",
"OrdersModel__orderDate__month"], "filters": [...], "order_by": ["-OrdersModel__orderCount"]}` with the
page (limit 20, offset 0) and the output columns (channel, month, orders) mapped to the SMQ's. A BI
tool's wrapper (`SELECT ... FROM (<semantic select>) AS virtual_table ...`) is folded into the same SMQ
when it only projects, filters, orders and pages; otherwise it is answered over the inner query's rows
(`Wrapped`). Anything else is a SqlApiError with the SQLSTATE a client expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlglot import exp

from ..errors import nearest
from ..layer.model import GRAINS
from .errors import GROUPING_ERROR, SYNTAX_ERROR, UNDEFINED_COLUMN, UNDEFINED_FUNCTION, UNDEFINED_TABLE, SqlApiError, unsupported
from .tables import Column, Table
from .values import NOT_A_VALUE, Parameters, ParameterSink, value_of
from .where import FilterBuilder, Operand

SCHEMA = "public"
_AGGREGATES = {exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max", exp.Count: "count",
               exp.Median: "median"}


@dataclass(frozen=True)
class Output:
    """One column of the answer: the client's name, the SMQ result column it shows, its PostgreSQL type."""

    name: str
    source: str
    pg_type: str


@dataclass(frozen=True)
class SemanticQuery:
    """An SMQ and how its answer is shown: the page and the output columns."""

    table: str
    smq: dict[str, Any]
    limit: int | None
    offset: int
    outputs: tuple[Output, ...]
    sources: tuple[str, ...]  # the SMQ's result columns in order: group_by, then metrics
    order: tuple[tuple[str, bool], ...] = ()  # (source, descending): kept for folding a wrapper


@dataclass(frozen=True)
class Wrapped:
    """An outer query evaluated over the rows of a semantic inner one (`inner_name` is the table it reads)."""

    inner: SemanticQuery
    outer: exp.Select
    inner_name: str


Translation = SemanticQuery | Wrapped


@dataclass
class _Item:
    name: str
    column: Column
    element: str  # the SMQ element (a dimension at its grain, or the measure/metric)
    pg_type: str
    is_dimension: bool


@dataclass
class _Context:
    table: Table
    dialect: str
    params: Parameters | None
    sink: ParameterSink | None
    aliases: set[str] = field(default_factory=set)  # names the FROM item goes by


def translate(select: exp.Select, tables: Mapping[str, Table], dialect: str, params: Parameters | None = None,
              sink: ParameterSink | None = None) -> Translation:
    """The SMQ of one semantic SELECT; `sink` (describing a statement) is told each `$n` and its type."""
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        raise unsupported("a query of the semantic layer reads one table: FROM \"Model\"")
    if select.args.get("joins"):
        raise unsupported("JOIN is not supported: a model's table already holds the dimensions it joins to, as "
                          "Model__element columns (SELECT \"CustomersModel__country\" FROM \"OrdersModel\")")
    if select.args.get("with_") or select.args.get("with"):
        raise unsupported("WITH is not supported; write the query over the model's table, or as a subquery in FROM")
    for key in ("windows", "qualify", "laterals", "pivots", "connect", "prewhere", "sample", "locks", "into"):
        if select.args.get(key):
            raise unsupported(f"{key.upper()} is not supported in a query of the semantic layer")
    relation = source.this
    if isinstance(relation, exp.Subquery):
        return _wrapped(select, relation, tables, dialect, params, sink)
    if not isinstance(relation, exp.Table) or not isinstance(relation.this, exp.Identifier):
        raise unsupported("FROM must name one table (a model), or a subquery over one")
    table = _table(relation, tables)
    ctx = _Context(table, dialect, params, sink, {table.name, relation.alias_or_name})
    return _semantic(select, ctx)


def _table(relation: exp.Table, tables: Mapping[str, Table]) -> Table:
    name, schema = relation.name, relation.db
    if schema and schema != SCHEMA:
        raise SqlApiError(f'schema "{schema}" does not exist (the layer\'s tables are in schema "public")', UNDEFINED_TABLE,
                          suggestions=nearest(name, tables))
    found = tables.get(name)
    if found is None:
        folded = [t for t in tables if t.casefold() == name.casefold()]
        if len(folded) == 1 and not relation.this.quoted:
            return tables[folded[0]]
        raise SqlApiError(f'relation "{name}" does not exist', UNDEFINED_TABLE, suggestions=nearest(name, tables))
    return found


# -- one semantic SELECT ------------------------------------------------------------------------------------
def _semantic(select: exp.Select, ctx: _Context) -> SemanticQuery:
    items: list[_Item] = []
    for node in select.expressions:
        items.extend(_select_items(node, ctx))
    if not items:
        raise unsupported("select at least one column")
    by_alias = {item.name: item for item in items}
    group_elements = _group_by(select, items, by_alias, ctx)
    dims = [i for i in items if i.is_dimension]
    measures = [i for i in items if not i.is_dimension]
    if group_elements is None:
        group_elements = list(dict.fromkeys(i.element for i in dims))
    else:
        missing = [i for i in dims if i.element not in group_elements]
        if missing:
            raise SqlApiError(f'column "{missing[0].name}" must appear in the GROUP BY clause or be read as a measure',
                              GROUPING_ERROR, hint="GROUP BY every selected dimension (by name, alias or position)")
    metrics = list(dict.fromkeys(i.element for i in measures))
    resolve = _resolver(ctx, by_alias)
    filters: list[Any] = []
    where = select.args.get("where")
    if where is not None:
        filters += FilterBuilder(_dimensions_only(resolve, "WHERE"), ctx.params, ctx.sink, ctx.dialect,
                                 "WHERE").filters(where.this)
    having = select.args.get("having")
    if having is not None:
        filters += FilterBuilder(_measures_only(resolve, "HAVING"), ctx.params, ctx.sink, ctx.dialect,
                                 "HAVING").filters(having.this)
    order = _order_by(select, items, by_alias, resolve)
    for element, _ in order:  # ordering by a measure that is not selected: it is computed, not shown
        if element not in group_elements and element not in metrics:
            if any(i.element == element and i.is_dimension for i in items) or _is_dimension_element(element, ctx):
                raise SqlApiError(f'ORDER BY "{element}": a dimension must be selected or grouped by to order by it',
                                  GROUPING_ERROR)
            metrics.append(element)
    limit, offset = _page(select, ctx)
    smq: dict[str, Any] = {}
    if metrics:
        smq["metrics"] = metrics
    if group_elements:
        smq["group_by"] = group_elements
    if filters:
        smq["filters"] = filters
    if order:
        smq["order_by"] = [("-" if desc else "") + element for element, desc in order]
    outputs = tuple(Output(i.name, i.element, i.pg_type) for i in items)
    return SemanticQuery(ctx.table.name, smq, limit, offset, outputs, tuple(group_elements) + tuple(metrics),
                         tuple(order))


def _is_dimension_element(element: str, ctx: _Context) -> bool:
    return any(c.kind == "dimension" and (element == c.element or element.startswith(c.element + "__"))
               for c in ctx.table.columns)


def _select_items(node: exp.Expression, ctx: _Context) -> list[_Item]:
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return [_item(c.name, c, c.element, c.pg_type) for c in ctx.table.by_kind("dimension", "measure")]
    alias = node.alias if isinstance(node, exp.Alias) else None
    expr = node.this if isinstance(node, exp.Alias) else node
    item = _expression_item(expr, ctx)
    if item is None:
        raise unsupported(f"cannot select {expr.sql(dialect='postgres')}: select columns, MEASURE(col), a measure's own "
                          "aggregation (SUM(revenue)) or DATE_TRUNC('grain', timeColumn)")
    if alias:
        item.name = alias
    return [item]


def _item(name: str, column: Column, element: str, pg_type: str) -> _Item:
    return _Item(name, column, element, pg_type, column.kind == "dimension")


def _expression_item(expr: exp.Expression, ctx: _Context) -> _Item | None:
    """The semantic meaning of a select expression, or None when it has none."""
    while isinstance(expr, exp.Paren):
        expr = expr.this
    if isinstance(expr, exp.Column):
        column = _column(expr, ctx)
        return _item(_output_name(expr), column, column.element, column.pg_type)
    if isinstance(expr, (exp.TimestampTrunc, exp.DateTrunc)) or (
            isinstance(expr, exp.Anonymous) and expr.name.lower() == "date_trunc"):
        return _date_trunc(expr, ctx)
    if isinstance(expr, exp.Anonymous) and expr.name.lower() == "measure":
        if len(expr.expressions) != 1 or not isinstance(expr.expressions[0], exp.Column):
            raise unsupported("MEASURE takes one column: MEASURE(\"orderCount\")")
        column = _column(expr.expressions[0], ctx)
        if column.kind == "dimension":
            raise SqlApiError(f'MEASURE("{column.name}"): "{column.name}" is a dimension, not a measure',
                              UNDEFINED_FUNCTION, hint=_measures_hint(ctx.table))
        return _item("measure", column, column.element, column.pg_type)
    if isinstance(expr, exp.AggFunc):
        return _aggregate(expr, ctx)
    return None


def _date_trunc(expr: exp.Expression, ctx: _Context) -> _Item:
    if isinstance(expr, exp.Anonymous):
        unit_node, target = expr.expressions[0], expr.expressions[1]
    else:
        unit_node, target = expr.args.get("unit"), expr.this
    unit = (unit_node.name if unit_node is not None else "").lower()
    if unit not in GRAINS:
        raise unsupported(f"DATE_TRUNC('{unit}', ...): the grains are {', '.join(GRAINS)}")
    while isinstance(target, (exp.Cast, exp.Paren)):
        target = target.this
    if not isinstance(target, exp.Column):
        raise unsupported("DATE_TRUNC truncates a time column of the table: DATE_TRUNC('month', \"orderDate\")")
    column = _column(target, ctx)
    if not column.is_time:
        raise SqlApiError(f'DATE_TRUNC: "{column.name}" is not a date or timestamp column', UNDEFINED_FUNCTION,
                          hint="time columns: " + ", ".join(c.name for c in ctx.table.columns if c.is_time))
    return _item("date_trunc", column, column.grain_element(unit), "date")


def _aggregate(expr: exp.AggFunc, ctx: _Context) -> _Item:
    name = type(expr).__name__.lower()
    agg = _AGGREGATES.get(type(expr))
    arg = expr.this
    if isinstance(expr, exp.Count) and isinstance(arg, exp.Distinct):
        agg, arg = "count_distinct", arg.expressions[0] if len(arg.expressions) == 1 else None
    if isinstance(expr, exp.Count) and (arg is None or isinstance(arg, exp.Star)):
        counts = [c for c in ctx.table.by_kind("measure") if c.agg == "count"]
        if len(counts) == 1:
            return _item("count", counts[0], counts[0].element, counts[0].pg_type)
        raise unsupported(f'COUNT(*) needs one count measure on "{ctx.table.name}"; read a measure instead',
                          hint=_measures_hint(ctx.table))
    if agg is None or not isinstance(arg, exp.Column):
        raise unsupported(f"{expr.sql(dialect='postgres')}: aggregate a measure by its own aggregation "
                          "(SUM(revenue) for a sum) or read it as MEASURE(col)", hint=_measures_hint(ctx.table))
    column = _column(arg, ctx)
    if column.kind == "dimension":
        raise unsupported(f'{name.upper()}("{column.name}"): "{column.name}" is a dimension; aggregates apply to '
                          "measures, which the layer defines", hint=_measures_hint(ctx.table))
    if column.agg is None:
        raise unsupported(f'{name.upper()}("{column.name}"): "{column.name}" is a {column.kind} with no single '
                          f'aggregation; read it as MEASURE("{column.name}")')
    if column.agg != agg:
        own = _AGG_SQL.get(column.agg, column.agg.upper())
        raise unsupported(f'{_AGG_SQL.get(agg, agg.upper())}("{column.name}"): "{column.name}" is a {column.agg} '
                          f'measure; read it as {own}("{column.name}") or MEASURE("{column.name}")')
    return _item("count" if agg == "count_distinct" else name, column, column.element, column.pg_type)


_AGG_SQL = {"sum": "SUM", "count": "COUNT", "count_distinct": "COUNT(DISTINCT)", "avg": "AVG", "min": "MIN",
            "max": "MAX", "median": "MEDIAN"}


def _measures_hint(table: Table) -> str:
    names = [c.name for c in table.by_kind("measure", "metric")]
    return "measures and metrics of this table: " + ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")


def _column(node: exp.Column, ctx: _Context) -> Column:
    qualifier = node.table
    if qualifier and qualifier not in ctx.aliases and qualifier.casefold() not in {a.casefold() for a in ctx.aliases}:
        raise SqlApiError(f'missing FROM-clause entry for table "{qualifier}"', UNDEFINED_TABLE,
                          suggestions=sorted(ctx.aliases)[:1])
    name = node.name
    found = ctx.table.column(name)
    if found is None or (node.this.quoted and found.name != name):
        if found is None or node.this.quoted:
            raise SqlApiError(f'column "{name}" does not exist in "{ctx.table.name}"', UNDEFINED_COLUMN,
                              suggestions=nearest(name, [c.name for c in ctx.table.columns]))
    return found


def _output_name(node: exp.Column) -> str:
    ident = node.this
    return ident.name if ident.quoted else ctx_name(ident.name)


def ctx_name(name: str) -> str:
    """An unquoted identifier as PostgreSQL names the output column: folded to lower case."""
    return name.lower()


# -- the clauses ------------------------------------------------------------------------------------------
def _reference(node: exp.Expression, items: list[_Item], by_alias: dict[str, _Item], ctx: _Context,
               clause: str) -> _Item:
    """An item of GROUP BY / ORDER BY: a position, an output name, or an expression."""
    if isinstance(node, exp.Literal) and not node.is_string:
        position = int(node.this) if node.is_int else -1
        if not 1 <= position <= len(items):
            raise SqlApiError(f"{clause} position {node.this} is not in select list (1 to {len(items)})", SYNTAX_ERROR)
        return items[position - 1]
    if isinstance(node, exp.Column) and not node.table and node.name in by_alias:
        column = ctx.table.column(node.name)
        if column is None or by_alias[node.name].column is column:
            return by_alias[node.name]
    item = _expression_item(node, ctx)
    if item is None:
        raise unsupported(f"{clause} {node.sql(dialect='postgres')}: name a selected column, its alias or its position")
    return item


def _group_by(select: exp.Select, items: list[_Item], by_alias: dict[str, _Item], ctx: _Context) -> list[str] | None:
    group = select.args.get("group")
    if group is None:
        return None
    for key in ("grouping_sets", "cube", "rollup"):
        if group.args.get(key):
            raise unsupported(f"GROUP BY {key.upper().replace('_', ' ')} is not supported")
    out: list[str] = []
    for node in group.expressions:
        item = _reference(node, items, by_alias, ctx, "GROUP BY")
        if not item.is_dimension:
            raise SqlApiError(f'GROUP BY "{item.name}": a measure is aggregated, it cannot be grouped by', GROUPING_ERROR,
                              hint="GROUP BY dimensions only")
        if item.element not in out:
            out.append(item.element)
    return out


def _order_by(select: exp.Select, items: list[_Item], by_alias: dict[str, _Item], resolve: Any) -> list[tuple[str, bool]]:
    order = select.args.get("order")
    if order is None:
        return []
    out: list[tuple[str, bool]] = []
    ctx = resolve.ctx
    for ordered in order.expressions:
        item = _reference(ordered.this, items, by_alias, ctx, "ORDER BY")
        if all(element != item.element for element, _ in out):
            out.append((item.element, bool(ordered.args.get("desc"))))
    return out


def _page(select: exp.Select, ctx: _Context) -> tuple[int | None, int]:
    limit = _count(select.args.get("limit"), ctx, "LIMIT")
    offset = _count(select.args.get("offset"), ctx, "OFFSET")
    return limit, offset or 0


def _count(node: exp.Expression | None, ctx: _Context, clause: str) -> int | None:
    if node is None:
        return None
    inner = node.args.get("expression") if isinstance(node, (exp.Limit, exp.Offset)) else node
    if inner is None or isinstance(inner, exp.Null):
        return None
    value = value_of(inner, ctx.params, "int8", ctx.sink)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, str) and value.strip().upper() == "ALL":
        return None
    if value is NOT_A_VALUE or isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SqlApiError(f"{clause} must be a non-negative integer", SYNTAX_ERROR)
    return value


class _Resolved:
    """Operands for WHERE and HAVING: columns, aliases of selected items, MEASURE(x), aggregates, DATE_TRUNC."""

    def __init__(self, ctx: _Context, by_alias: dict[str, _Item]) -> None:
        self.ctx = ctx
        self.by_alias = by_alias

    def __call__(self, node: exp.Expression) -> Operand | None:
        if isinstance(node, exp.Column) and not node.table and node.name in self.by_alias \
                and self.ctx.table.column(node.name) is None:
            item = self.by_alias[node.name]
            return Operand(item.element, item.pg_type, item.name) if not item.is_dimension else \
                Operand(item.element, item.pg_type, item.name)
        if isinstance(node, (exp.Column, exp.Anonymous, exp.TimestampTrunc, exp.DateTrunc, exp.AggFunc)):
            if isinstance(node, exp.Anonymous) and node.name.lower() not in ("measure", "date_trunc"):
                return None
            found = _expression_item(node, self.ctx)
            if found is not None:
                return Operand(found.element, found.pg_type, found.name)
        return None

    def kind(self, element: str) -> bool:
        return _is_dimension_element(element, self.ctx)


def _resolver(ctx: _Context, by_alias: dict[str, _Item]) -> _Resolved:
    return _Resolved(ctx, by_alias)


def _dimensions_only(resolve: _Resolved, clause: str) -> Any:
    def check(node: exp.Expression) -> Operand | None:
        operand = resolve(node)
        if operand is not None and not resolve.kind(operand.element):
            raise SqlApiError(f'{clause}: "{operand.label}" is a measure; filter on it in HAVING', GROUPING_ERROR)
        return operand
    return check


def _measures_only(resolve: _Resolved, clause: str) -> Any:
    def check(node: exp.Expression) -> Operand | None:
        operand = resolve(node)
        if operand is not None and resolve.kind(operand.element):
            raise SqlApiError(f'{clause}: "{operand.label}" is a dimension; filter on it in WHERE', GROUPING_ERROR)
        return operand
    return check


# -- a BI tool's wrapper ---------------------------------------------------------------------------------
def _wrapped(select: exp.Select, relation: exp.Subquery, tables: Mapping[str, Table], dialect: str,
             params: Parameters | None, sink: ParameterSink | None) -> Translation:
    inner_select = relation.this
    if not isinstance(inner_select, exp.Select):
        raise unsupported("the subquery in FROM must be one SELECT over a model's table")
    inner = translate(inner_select, tables, dialect, params, sink)
    if isinstance(inner, Wrapped):
        raise unsupported("a subquery over a subquery that cannot be folded into one query is not supported")
    name = relation.alias_or_name or "subquery"
    folded = _fold(select, inner, name, dialect, params, sink)
    if folded is not None:
        return folded
    outer = select.copy()
    from_: Any = outer.args.get("from_") or outer.args.get("from")
    from_.set("this", exp.Table(this=exp.to_identifier(name, quoted=True), alias=None))
    return Wrapped(inner, outer, name)


def _fold(select: exp.Select, inner: SemanticQuery, name: str, dialect: str, params: Parameters | None,
          sink: ParameterSink | None) -> SemanticQuery | None:
    """The wrapper as one SMQ when it only projects, filters, orders and pages the inner query; else None."""
    if any(select.args.get(k) for k in ("group", "having", "distinct", "joins", "with_", "with", "windows", "qualify")):
        return None
    columns = {o.name: o for o in inner.outputs}
    outputs: list[Output] = []
    for node in select.expressions:
        if isinstance(node, exp.Star):
            outputs.extend(inner.outputs)
            continue
        alias = node.alias if isinstance(node, exp.Alias) else None
        expr = node.this if isinstance(node, exp.Alias) else node
        if not isinstance(expr, exp.Column) or expr.name not in columns or (expr.table and expr.table != name):
            return None
        source = columns[expr.name]
        outputs.append(Output(alias or expr.name, source.source, source.pg_type))
    where = select.args.get("where")
    order = select.args.get("order")
    limit = _count(select.args.get("limit"), _Context(Table(name, "", ()), dialect, params, sink), "LIMIT")
    offset = _count(select.args.get("offset"), _Context(Table(name, "", ()), dialect, params, sink), "OFFSET") or 0
    if (inner.limit is not None or inner.offset) and (where is not None or order is not None):
        return None  # filtering or ordering the rows of a page is not the page of a filtered query
    smq = {k: list(v) if isinstance(v, list) else v for k, v in inner.smq.items()}
    if where is not None:
        def resolve(node: exp.Expression) -> Operand | None:
            if isinstance(node, exp.Column) and node.name in columns and (not node.table or node.table == name):
                out = columns[node.name]
                return Operand(out.source, out.pg_type, out.name)
            return None
        try:
            built = FilterBuilder(resolve, params, sink, dialect, "WHERE").filters(where.this)
        except SqlApiError:
            return None
        smq["filters"] = list(smq.get("filters", [])) + built
    new_order = inner.order
    if order is not None:
        keys: list[tuple[str, bool]] = []
        for ordered in order.expressions:
            node = ordered.this
            if isinstance(node, exp.Literal) and node.is_int and 1 <= int(node.this) <= len(outputs):
                key = outputs[int(node.this) - 1].source
            elif isinstance(node, exp.Column) and node.name in columns:
                key = columns[node.name].source
            elif isinstance(node, exp.Column) and node.name in {o.name for o in outputs}:
                key = next(o.source for o in outputs if o.name == node.name)
            else:
                return None
            keys.append((key, bool(ordered.args.get("desc"))))
        new_order = tuple(keys)
        smq["order_by"] = [("-" if d else "") + s for s, d in keys]
    new_limit, new_offset = _compose(inner.limit, inner.offset, limit, offset)
    return replace(inner, smq=smq, limit=new_limit, offset=new_offset, outputs=tuple(outputs), order=new_order)


def _compose(inner_limit: int | None, inner_offset: int, limit: int | None, offset: int) -> tuple[int | None, int]:
    """Page `limit`/`offset` of the rows of page `inner_limit`/`inner_offset`."""
    start = inner_offset + offset
    if inner_limit is None:
        return limit, start
    remaining = max(inner_limit - offset, 0)
    return (remaining if limit is None else min(limit, remaining)), start
