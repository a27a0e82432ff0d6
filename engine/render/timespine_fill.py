"""fill_nulls_with and join_to_timespine of simple metrics (and of a conversion metric's inputs), applied to the
assembled query.

join_to_timespine: when the query is grouped by a time key (metric_time or a date/timestamp
dimension at a grain), every period of the time spine gets a row, as in MetricFlow: the spine LEFT
JOIN the result on the period. The other grains and date parts of that time axis come from the spine
day too; the other group keys of a period without rows are NULL. The query's filters on that time key
restrict the spine too; without one, the whole spine is listed. Its metric filters hold after the join,
on the filled values.
fill_nulls_with: the metric's NULLs (no rows in its group, a period added from the spine) become the
given number; the query resolver writes it into the metric's expression (so a ratio or derived metric reads
the filled value too) and the spine join fills the periods it adds for the metrics the query names.
"""

from __future__ import annotations

from sqlglot import exp

from ..layer.model import Metric, SemanticLayer
from ..plan.nodes import SpineFill
from ..resolve.filters import Filter
from ..resolve.names import DimRef
from ..trees import fresh
from .render import Renderer
from .spine_periods import finest, spine_at


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.Column(this=_ident(name), table=_ident(table) if table else None)


def _metric(layer: SemanticLayer, name: str) -> Metric | None:
    metric = layer.metrics.get(name)
    return metric if metric is not None and metric.type in ("simple", "cumulative") else None


def _over_empty_inputs(template: exp.Expression) -> exp.Expression:
    """An output's template with every aggregate column NULL: its value in a period without rows."""
    return fresh(template).transform(lambda n: exp.Null() if isinstance(n, exp.Column) and not n.table else n, copy=False)


def _from_spine(plan: SpineFill, position: int) -> list[int]:
    """The group keys the spine day gives: the time key and the other grains and date parts of its axis
    (metric_time, or the same time dimension), as MetricFlow reads every one of them from the spine."""
    key = plan.group_keys[position]

    def same(ref: DimRef) -> bool:
        if key.axis or ref.axis:
            return key.axis and ref.axis
        return (ref.dimension.qualified_name, ref.keys, ref.entity_path) == (key.dimension.qualified_name, key.keys, key.entity_path)

    return [i for i, ref in enumerate(plan.group_keys)
            if i == position or (same(ref) and (ref.grain or ref.date_part or ref.dimension.type == "date"))]


def _spine_filters(plan: SpineFill, key: DimRef) -> list[Filter]:
    """The query's row filters that name only the time key's axis: metric_time, or the key's own dimension, or the agg
    time dimension of a measure filled (MetricFlow filters its spine on `booking__ds__month` under `metric_time__day`)."""
    axis = plan.time_dimensions or frozenset()

    def same(ref: DimRef) -> bool:
        if ref.axis:
            return key.axis or key.dimension.qualified_name in axis
        return ref.dimension.qualified_name in axis or (not key.axis and ref.dimension.qualified_name == key.dimension.qualified_name)

    return [f for f in plan.where if f.dimension_refs() and all(same(r) for r in f.dimension_refs())]


def having_column(i: int) -> str:
    """The result's column holding the query's i-th metric filter, read after the spine join (no
    element is named so: names start with a letter)."""
    return f"_having{i}"


def fill_from_timespine(query: exp.Query, plan: SpineFill, renderer: Renderer) -> exp.Query:
    """The query with spine periods added and NULLs filled for the metrics that ask for it (else unchanged).

    With a spine join the query's metric filters (its HAVING) are columns of the result (visitor.py's Project) and hold
    here, on the filled value of every period: MetricFlow applies them to the joined and filled output, so
    a period the spine adds is listed only when its fill passes them."""
    layer, dialect = renderer.layer, renderer.dialect
    names = [o.name for o in plan.outputs]
    metrics = {o.name: m for o in plan.outputs if (m := _metric(layer, o.name)) is not None}
    # ratio, derived and conversion metrics: a period the spine adds computes the expression over empty inputs
    # (a conversion metric's inputs COALESCEd to their fill_nulls_with: resolve/conversions.py)
    computed = {o.name: _over_empty_inputs(o.template) for o in plan.outputs
                if (m := layer.metrics.get(o.name)) is not None and m.type in ("ratio", "derived", "conversion")}
    fills = {name: m.fill_nulls_with for name, m in metrics.items() if m.fill_nulls_with is not None}

    def added(table: str, value: exp.Expression, otherwise: exp.Expression) -> exp.Expression:
        """`value` in a period the spine adds (the result has no row for it), else `otherwise`."""
        return exp.Case(ifs=[exp.If(this=exp.Is(this=_col(time_name, table), expression=exp.Null()), true=value)],
                        default=otherwise)

    def filled(name: str, table: str) -> exp.Expr:
        value: exp.Expression = _col(name, table)
        if name in computed:
            value = added(table, computed[name], value)
        elif name in fills:
            value = exp.Coalesce(this=value, expressions=[exp.Literal.number(fills[name])])
        return exp.alias_(value, name, quoted=True)

    # the query's own CTEs move up: a WITH nested in a CTE or a subquery is not read by every engine
    with_ = query.args.get("with_")
    ctes = list(with_.expressions) if with_ is not None else []
    query.set("with_", None)
    position, grain = plan.position, plan.grain
    spine = layer.time_spine
    assert spine is not None
    time_name = names[position]
    day = _col(spine.column, "spine")
    period = dialect.truncate(day, grain)

    bounds = [renderer.filter_expr(f, renderer.on_spine(day)) for f in _spine_filters(plan, plan.group_keys[position])]
    # one column per key the spine gives ("period" the time key's), joined on all: a day the spine adds has
    # its month and day of week too, and a coarser key listed first still gets every finer period
    columns = {i: "period" if i == position else f"period{i}" for i in _from_spine(plan, position)}

    def value(i: int) -> exp.Expression:
        ref = plan.group_keys[i]
        if i == position:
            return period
        if ref.date_part:
            return dialect.date_part(fresh(day), ref.date_part)
        return dialect.truncate(fresh(day), ref.grain or "day")

    periods = exp.Select(expressions=[exp.alias_(value(i), c, quoted=True) for i, c in columns.items()])
    # below a day, the spine's periods at the finest grain of the query's time keys (render/spine_periods.py)
    grains = [plan.group_keys[i].grain or "day" for i in columns if not plan.group_keys[i].date_part]
    periods = periods.from_(spine_at(spine, dialect, finest(grains)), copy=False)
    if bounds:
        periods = periods.where(*bounds, copy=False)
    # a metric filter holds on the filled value: the result's, or over empty inputs in a period the spine adds
    having = [added("r", _over_empty_inputs(h), _col(having_column(i), "r")) for i, h in enumerate(plan.having)]
    periods = periods.distinct(copy=False)
    projection = [exp.alias_(_col(columns[i], "p"), n, quoted=True) if i in columns else filled(n, "r") for i, n in enumerate(names)]
    on = exp.and_(*[exp.EQ(this=_col(names[i], "r"), expression=_col(c, "p")) for i, c in columns.items()])
    join = exp.Join(this=exp.Table(this=_ident("result"), alias=exp.TableAlias(this=_ident("r"))), on=on, side="LEFT")
    out = (exp.Select(expressions=projection)
           .from_(exp.Table(this=_ident("periods"), alias=exp.TableAlias(this=_ident("p"))), copy=False)
           .join(join, copy=False))
    if having:
        out = out.where(*having, copy=False)
    ctes += [exp.CTE(this=query, alias=exp.TableAlias(this=_ident("result"))),
             exp.CTE(this=periods, alias=exp.TableAlias(this=_ident("periods")))]
    return _with(out, ctes)


def _with(query: exp.Select, ctes: list[exp.CTE]) -> exp.Select:
    if ctes:
        query.set("with_", exp.With(expressions=ctes))
    return query


def _aliased(table: exp.Expression, alias: str) -> exp.Expression:
    node = fresh(table)
    node.set("alias", exp.TableAlias(this=_ident(alias)))
    return node
