"""The conversions of a conversion metric, as MetricFlow counts them.

Every conversion event (a row of the conversion measure's model) is joined to the base events of the
same entity at or before it (`base day <= conversion day`, and `base day > conversion day - window`
with a window), with the constant properties equal on both; it is attributed to the closest preceding
base event only (the latest base day, one base row), whose group keys it takes. The conversion
measure is then aggregated over the attributed events per group. Days are compared, not timestamps.
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import QueryError, Location
from ..layer.exprs import parse_expression
from ..layer.model import Model
from ..plan.nodes import FactGroup
from ..smq.filters import Filter
from ..smq.resolve import DimRef
from .dialects import to_date
from .offsets import shift
from .render import JoinTree, Renderer, aliased, col, ident, qualify


def _entity(model: Model, entity: str, alias: str, dialect: str) -> exp.Expression:
    return qualify(parse_expression(model.entities[entity].expr, dialect), alias)


def conversion_ctes(renderer: Renderer, group: FactGroup, keys: tuple[DimRef, ...], where: tuple[Filter, ...]) -> list[tuple[str, exp.Select]]:
    """`<id>_base` (base events with their keys), `<id>_conversions` (conversion events), `<id>_attributed`
    (each conversion with its closest preceding base event) and `<id>` (the conversions per group)."""
    metric = group.conversion
    assert metric is not None and metric.conversion is not None, "planned: a conversions group has its metric"
    params = metric.conversion
    layer, dialect = renderer.layer, renderer.dialect
    if group.dedupe:
        raise QueryError(f"conversion metric '{metric.name}': grouping across a one_to_many step ({group.fan_out_path}) would "
                         "repeat base events; this is not supported yet", code="fan_out_without_primary_key",
                         location=Location(field="group_by"))
    base_model = layer.models[group.model]
    base_measure = group.aggregates[0].measure
    conv_model_name, _, conv_name = params.conversion_measure.partition("__")
    conv_model = layer.models[conv_model_name]
    conv_measure = conv_model.measures[conv_name]
    base_time, conv_time = base_model.time_dimension_of(base_measure), conv_model.time_dimension_of(conv_measure)
    assert base_time is not None and conv_time is not None, "validated: both measures sit on a time axis"

    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in group.paths}
    tree = JoinTree(base_model, list(group.paths), layer, renderer.source_for)

    def render_ref(ref: DimRef) -> exp.Expression:
        return renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

    base_alias = tree.root_alias
    projection = [exp.alias_(_entity(base_model, params.entity, base_alias, dialect), "entity", quoted=True),
                  exp.alias_(to_date(qualify(base_time.node, base_alias), dialect), "t", quoted=True)]
    for i, (left, _) in enumerate(params.constant_properties):
        projection.append(exp.alias_(qualify(base_model.dimensions[left.partition("__")[2]].node, base_alias), f"c{i}", quoted=True))
    projection += [exp.alias_(render_ref(ref), f"g{i}", quoted=True) for i, ref in enumerate(keys)]
    base_rows = tree.select().select(*projection, copy=False)
    conditions = [renderer.filter_expr(f, render_ref) for f in where]
    if conditions:
        base_rows = base_rows.where(*conditions, copy=False)

    conv_alias = "conversion_events"
    conv_day = to_date(qualify(conv_time.node, conv_alias), dialect)
    value = qualify(conv_measure.node, conv_alias) if conv_measure.node is not None else exp.Literal.number(1)
    conv_projection = [
        exp.alias_(exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=conv_day.copy())])), "id", quoted=True),
        exp.alias_(_entity(conv_model, params.entity, conv_alias, dialect), "entity", quoted=True),
        exp.alias_(conv_day, "t", quoted=True),
        exp.alias_(value, "v", quoted=True),
    ]
    for i, (_, right) in enumerate(params.constant_properties):
        conv_projection.append(exp.alias_(qualify(conv_model.dimensions[right.partition("__")[2]].node, conv_alias), f"c{i}", quoted=True))
    conv_rows = exp.Select(expressions=conv_projection).from_(aliased(renderer.source_for(conv_model), conv_alias))

    base_name, conv_name_cte, attributed_name = f"{group.id}_base", f"{group.id}_conversions", f"{group.id}_attributed"
    on: list[exp.Expression] = [exp.EQ(this=col("entity", "b"), expression=col("entity", "c")),
                                exp.LTE(this=col("t", "b"), expression=col("t", "c"))]
    if params.window is not None:
        on.append(exp.GT(this=col("t", "b"), expression=shift(col("t", "c"), -params.window.count, params.window.unit, dialect)))
    on += [exp.EQ(this=col(f"c{i}", "b"), expression=col(f"c{i}", "c")) for i in range(len(params.constant_properties))]
    closest = exp.Window(this=exp.RowNumber(), partition_by=[col("id", "c")],
                         order=exp.Order(expressions=[exp.Ordered(this=col("t", "b"), desc=True)]))
    attributed = (
        exp.Select(expressions=[col("v", "c"), *[col(f"g{i}", "b") for i in range(len(keys))], exp.alias_(closest, "rn", quoted=True)])
        .from_(exp.Table(this=ident(base_name), alias=exp.TableAlias(this=ident("b"))))
        .join(exp.Table(this=ident(conv_name_cte), alias=exp.TableAlias(this=ident("c"))), on=exp.and_(*on), join_type="INNER", copy=False)
    )
    key_cols = [col(f"g{i}") for i in range(len(keys))]
    counted = (exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_cols)],
                                       exp.alias_(renderer.aggregate(conv_measure.agg, col("v")), group.aggregates[0].id, quoted=True)])
               .from_(ident(attributed_name)).where(exp.EQ(this=col("rn"), expression=exp.Literal.number(1)), copy=False))
    if key_cols:
        counted = counted.group_by(*[k.copy() for k in key_cols], copy=False)
    return [(base_name, base_rows), (conv_name_cte, conv_rows), (attributed_name, attributed), (group.id, counted)]
