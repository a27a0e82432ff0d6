"""Semi-additive measures (MetricFlow's non_additive_dimension): a balance is summed across
accounts but not across days; only the rows on the first (window_choice: min) or last (max) day
of each period count, the day chosen per window grouping (e.g. per account).

The period is the query's own time key on the measure's time axis (metric_time or the
non-additive dimension itself, at the grain asked); without one, the whole time range. Other group
keys (a country, a category) do not choose the day: the balance on an account's last day is then
split by them. The day is picked with a window function over the rows (`MAX(day) OVER (PARTITION BY
period, groupings)`, every engine here has them) and the rows off it are dropped one level up, so a
semi-additive measure is aggregated on its own (the query resolver gives it its own aggregation).
"""

from __future__ import annotations

from sqlglot import exp

from ..dialects.base import Dialect
from ..layer.model import Measure, Model
from ..resolve.names import DimRef
from ..trees import fresh


def _qualified(node: exp.Expression, alias: str) -> exp.Expression:
    out = fresh(node)
    for c in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        c.set("table", exp.to_identifier(alias, quoted=True))
        c.set("db", None)
        c.set("catalog", None)
    return out


def period_keys(measure: Measure, model: Model, keys: tuple[DimRef, ...], key_exprs: list[exp.Expression]) -> list[exp.Expression]:
    """The query's keys that cut time into periods for this measure: on its non-additive or its time dimension."""
    spec = measure.non_additive
    assert spec is not None
    axis = model.time_dimension_of(measure)
    names = {spec.dimension, axis.name if axis is not None else spec.dimension}
    return [fresh(e) for ref, e in zip(keys, key_exprs)
            if ref.dimension.model == model.name and ref.dimension.name in names and not ref.keys]


def window_columns(measure: Measure, model: Model, keys: tuple[DimRef, ...], key_exprs: list[exp.Expression],
                   alias: str, dialect: Dialect) -> list[exp.Expr]:
    """`__day` (the row's day) and `__window` (its window's first/last day) for the rows of a semi-additive measure."""
    spec = measure.non_additive
    assert spec is not None
    day = dialect.to_date(_qualified(model.dimensions[spec.dimension].node, alias))
    partition = period_keys(measure, model, keys, key_exprs)
    partition += [_qualified(model.dimensions[g].node, alias) for g in spec.window_groupings]
    pick = exp.Max if spec.window_choice == "max" else exp.Min
    window = exp.Window(this=pick(this=fresh(day)), partition_by=partition or None)
    return [exp.alias_(day, "__day", quoted=True), exp.alias_(window, "__window", quoted=True)]


def on_window(table: str) -> exp.Expression:
    """Only the rows on their window's day count (a group without such a row disappears, as in MetricFlow)."""
    return exp.EQ(this=exp.Column(this=exp.to_identifier("__day", quoted=True), table=exp.to_identifier(table, quoted=True)),
                  expression=exp.Column(this=exp.to_identifier("__window", quoted=True), table=exp.to_identifier(table, quoted=True)))
