"""The semantic layer as frozen, typed objects: what the loader produces and the compiler reads.

Parsed SQL expressions (sqlglot trees) are kept next to their source text; they are never
mutated after loading (the compiler copies before it qualifies columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import Location
from ..lru import LruCache

if TYPE_CHECKING:
    from .conversion import Conversion
    from .rollups import Rollups

DIMENSION_TYPES = ("string", "number", "boolean", "date", "timestamp")
TIME_TYPES = ("date", "timestamp")
AGGREGATIONS = ("sum", "count", "count_distinct", "avg", "min", "max", "percentile", "median")
# a rollup's stored counts, added up again: 0, not NULL, over no rows, as COUNT is (engine/rollups/bind.py)
SUM_OF_COUNTS = "sum_of_counts"
PERCENTILE_AGGS = ("percentile", "median")  # they do not re-aggregate; some engines have none (engine/dialects)
METRIC_TYPES = ("simple", "ratio", "derived", "cumulative", "conversion")
RELATIONSHIPS = ("many_to_one", "one_to_one", "one_to_many")
JOIN_TYPES = ("left", "inner")
GRAINS = ("day", "week", "month", "quarter", "year")
# below a day: a timestamp dimension (or metric_time on one) grouped by the hour, minute or second, truncated to a
# TIMESTAMP (engine/dialects: truncate). The time spine is daily, so what reads it (cumulative, offset, conversion
# metrics, join_to_timespine) is refused at these grains (engine/resolve/query_resolver.py _check_sub_daily)
SUB_DAILY_GRAINS = ("second", "minute", "hour")
TIME_GRAINS = (*SUB_DAILY_GRAINS, *GRAINS)  # finest first


def grained_type(grain: str) -> str:
    """The type of a time dimension read at a grain: a day or coarser is a DATE, an hour or finer a TIMESTAMP."""
    return "timestamp" if grain in SUB_DAILY_GRAINS else "date"
DATE_PARTS = ("year", "quarter", "month", "day", "dow", "doy")
ENTITY_TYPES = ("primary", "unique", "foreign")
TIME_AXIS = "metric_time"  # the common time axis: each measure on its own time dimension

# SQL type names users may write for a dimension's `type`, mapped to the five kinds
SQL_TYPE_ALIASES: dict[str, str] = {
    # a time of day has no date grain: it is grouped and filtered like text
    **{t: "string" for t in ("string", "varchar", "text", "char", "character", "nvarchar", "nchar", "str", "uuid", "enum", "json", "time")},
    **{
        t: "number"
        for t in (
            "number", "numeric", "decimal", "int", "integer", "bigint", "smallint", "tinyint", "int64", "float",
            "float64", "double", "real", "double precision", "hugeint", "ubigint", "uinteger", "money",
        )
    },
    **{t: "boolean" for t in ("boolean", "bool", "bit")},
    "date": "date",
    **{t: "timestamp" for t in ("timestamp", "datetime", "timestamptz", "timestamp_ntz", "timestamp_ltz", "timestamp_tz")},
}


def qualified(model: str, element: str) -> str:
    """The public name of a model's element: `OrdersModel__orderDate`."""
    return f"{model}__{element}"


@dataclass(frozen=True, slots=True)
class Dimension:
    model: str
    name: str
    type: str
    description: str
    expr: str
    node: exp.Expression
    location: Location
    # a time dimension's declared grain (`time_granularity`, MetricFlow's): its values are periods of it, e.g. a
    # monthly snapshot; conversion metrics compare event times at the coarsest grain of their two time dimensions
    grain: str | None = None
    # `is_partition: true` (MetricFlow's): a join between two models that both declare a partition dimension of
    # this name joins on it too, beside the entity key (engine/layer/joins.py with_partitions)
    partition: bool = False
    label: str = ""  # a display name (MetricFlow's label); listings only
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)  # free-form, carried to listings

    @property
    def qualified_name(self) -> str:
        return qualified(self.model, self.name)

    @property
    def is_time(self) -> bool:
        return self.type in TIME_TYPES


FORMAT_TYPES = ("number", "currency", "percent")  # a measure's or metric's `format: {type: ...}`


@dataclass(frozen=True, slots=True)
class ValueFormat:
    """How a front end shows a measure's or metric's numbers (`format:` in the YAML; engine/layer/formats.py).

    percent: the values are fractions (0.05 shows as 5%); currency: an ISO 4217 code (EUR); decimals: the
    digits after the point (None: the front end's choice)."""

    type: str  # one of FORMAT_TYPES
    currency: str | None = None
    decimals: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The listing's form: only the keys that are set."""
        out: dict[str, Any] = {"type": self.type}
        if self.currency is not None:
            out["currency"] = self.currency
        if self.decimals is not None:
            out["decimals"] = self.decimals
        return out


@dataclass(frozen=True, slots=True)
class Measure:
    model: str
    name: str
    agg: str
    description: str
    expr: str | None  # None: COUNT(*)
    node: exp.Expression | None
    location: Location
    time_dimension: str | None = None  # a dimension of its model: its place on metric_time (else the model's default)
    # agg: percentile (engine/sql/percentile.py): the fraction 0..1, discrete (PERCENTILE_DISC), approximate
    percentile: float | None = None
    discrete: bool = False
    approximate: bool = False
    non_additive: NonAdditive | None = None  # semi-additive (engine/render/semi_additive.py)
    format: ValueFormat | None = None  # how its numbers are shown (listings only; no effect on SQL)
    label: str = ""  # a display name (MetricFlow's label); listings only
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)  # free-form, carried to listings

    @property
    def qualified_name(self) -> str:
        return qualified(self.model, self.name)

    @property
    def fraction(self) -> float:
        """A percentile measure's percentile as a fraction (a median is 0.5)."""
        return 0.5 if self.agg == "median" or self.percentile is None else self.percentile

    @property
    def percentile_kind(self) -> str:
        """`exact continuous percentile 0.9`, `continuous median`: how messages name a percentile measure."""
        if self.agg == "median":
            return "continuous median"
        words = ["approximate" if self.approximate else "exact", "discrete" if self.discrete else "continuous"]
        return f"{' '.join(words)} percentile {self.fraction}"


@dataclass(frozen=True, slots=True)
class NonAdditive:
    """MetricFlow's non_additive_dimension: only the rows on the first (min) or last (max) day of the
    time dimension count, per period of the query's time grain and per window grouping."""

    dimension: str  # a time dimension of the measure's model
    window_choice: str  # "min" | "max"
    window_groupings: tuple[str, ...] = ()  # dimensions of the measure's model (e.g. an account id)
    location: Location | None = field(default=None, compare=False)  # where it is written, for messages
    grouping_locations: tuple[Location, ...] = field(default=(), compare=False)  # each window_groupings entry's, for messages


@dataclass(frozen=True, slots=True)
class Entity:
    """A MetricFlow entity of a model: a join key with a name (`listing`), used by MetricFlow's names."""

    name: str
    type: str  # one of ENTITY_TYPES
    expr: str
    location: Location

    @property
    def owner(self) -> bool:
        return self.type in ("primary", "unique")


@dataclass(frozen=True, slots=True)
class Window:
    count: int
    unit: str  # one of GRAINS

    def __str__(self) -> str:
        return f"{self.count} {self.unit}{'s' if self.count != 1 else ''}"


@dataclass(frozen=True, slots=True)
class Offset:
    """Where a derived input reads its value on the time axis: `window` earlier, or the start of `to_grain`."""

    window: Window | None = None
    to_grain: str | None = None
    # nested offsets (an offset input of a metric that is itself read at an offset): the inner offset, applied
    # to the period this one reads (engine/plan/offsets.py); None in what the loader builds
    then: Offset | None = None
    on_metric: bool = False  # read from a ratio or derived metric's result (MetricFlow shifts its periods), not from rows

    @property
    def grain(self) -> str:
        """The grain the offset is counted in (MetricFlow joins after aggregating when the query uses it)."""
        return self.window.unit if self.window is not None else str(self.to_grain)

    @property
    def steps(self) -> tuple[Offset, ...]:
        """The offsets applied one after the other, outermost first (one step unless nested)."""
        own = Offset(self.window, self.to_grain, on_metric=self.on_metric)
        return (own, *self.then.steps) if self.then is not None else (own,)

    def followed_by(self, inner: Offset) -> Offset:
        """This offset, then `inner` applied to the period it reads."""
        return Offset(self.window, self.to_grain, inner if self.then is None else self.then.followed_by(inner), self.on_metric)

    def __str__(self) -> str:
        own = f"-{self.window}" if self.window is not None else f"to start of {self.to_grain}"
        return own if self.then is None else f"{own}, then {self.then}"


@dataclass(frozen=True, slots=True)
class MetricInput:
    """A ratio side or a derived input written as a mapping (engine/layer/inputs.py reads it): its own filters,
    and (derived) an alias the expr uses and a time offset (`offset_window` / `offset_to_grain`)."""

    role: str  # numerator | denominator | input
    name: str  # the measure or metric
    alias: str | None = None
    filters: tuple[str, ...] = ()
    filter_nodes: tuple[exp.Expression, ...] = ()
    location: Location | None = None
    offset: Offset | None = None  # derived inputs only
    filter_locations: tuple[Location, ...] = field(default=(), compare=False)  # each filter's, for messages

    @property
    def reference(self) -> str:
        """The name the derived expression uses for it."""
        return self.alias or self.name


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    type: str
    description: str
    model: str | None  # the model file it is declared in (for listings)
    location: Location
    measure: str | None = None  # simple, cumulative
    filters: tuple[str, ...] = ()  # every type: applies to each measure it is computed from (ANDed with its inputs' own)
    filter_nodes: tuple[exp.Expression, ...] = ()
    numerator: str | None = None  # ratio
    denominator: str | None = None
    expr: str | None = None  # derived
    expr_node: exp.Expression | None = None
    time_dimension: str | None = None  # cumulative
    window: Window | None = None
    grain_to_date: str | None = None
    period_agg: str | None = None  # cumulative above day grain: "first" or "last" day's value (ours) or the "average" day's
    periods: str | None = None  # cumulative: "data_range" (ours: first to last period with rows) or "nonempty_window" (MetricFlow's)
    time_grain: str | None = None  # the grain of a bare `metric_time` (day when not given)
    fill_nulls_with: int | float | None = None  # simple: the value of a period/group without rows (engine/sql/timespine_fill.py)
    join_to_timespine: bool = False  # simple: one row per time-spine period when grouped by time
    input_specs: tuple[MetricInput, ...] = ()  # ratio sides / derived `inputs:` (filters, aliases, offsets)
    conversion: Conversion | None = None  # conversion: its parameters; engine/layer/conversion.py
    filter_locations: tuple[Location, ...] = field(default=(), compare=False)  # each of `filters`', for messages
    format: ValueFormat | None = None  # how its numbers are shown (listings only; no effect on SQL)
    label: str = ""  # a display name (MetricFlow's label); listings only
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)  # free-form, carried to listings

    def inputs(self) -> tuple[str, ...]:
        """Names of the measures/metrics this metric is computed from."""
        if self.type in ("simple", "cumulative"):
            return (self.measure,) if self.measure else ()
        if self.type == "ratio":
            return tuple(x for x in (self.numerator, self.denominator) if x)
        if self.type == "conversion" and self.conversion is not None:
            return (self.conversion.base_measure, self.conversion.conversion_measure)
        if self.type == "derived" and self.expr_node is not None:
            aliases = self.aliases()
            return tuple(dict.fromkeys(aliases.get(n, n) for n in self.expr_names()))
        return ()

    @property
    def derived_inputs(self) -> tuple[MetricInput, ...]:
        """A derived metric's `inputs:` entries (not its ratio sides)."""
        return tuple(i for i in self.input_specs if i.role == "input")

    def expr_names(self) -> tuple[str, ...]:
        """The names a derived expression uses (input names or aliases)."""
        if self.expr_node is None:
            return ()
        return tuple(dict.fromkeys(column_name(c) for c in self.expr_node.find_all(exp.Column, exp.Dot)
                                   if not isinstance(c.parent, exp.Dot)))

    def aliases(self) -> dict[str, str]:
        return {i.alias: i.name for i in self.input_specs if i.alias}

    def input_spec(self, role: str, name: str) -> MetricInput | None:
        """The spec of a ratio side (role numerator/denominator) or of a derived input (by alias, else unaliased name)."""
        for spec in self.input_specs:
            if spec.role == role and (role != "input" or spec.alias == name):
                return spec
        if role == "input":
            for spec in self.input_specs:
                if spec.role == role and spec.alias is None and spec.name == name:
                    return spec
        return None


def column_name(node: exp.Expression) -> str:
    """The dotted name a user wrote: `a.b.Model__x` parses as a Column or a Dot chain."""
    if isinstance(node, exp.Column):
        return ".".join(p.name for p in node.parts)
    if isinstance(node, exp.Dot):
        left = column_name(node.this)
        return f"{left}.{node.expression.name}" if left else node.expression.name
    return node.name


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    description: str
    table: str | None
    sql: str | None
    source: exp.Expression  # exp.Table, or exp.Subquery for a derived model
    primary_key: tuple[str, ...]
    primary_key_nodes: tuple[exp.Expression, ...]
    dimensions: Mapping[str, Dimension]
    measures: Mapping[str, Measure]
    metric_names: tuple[str, ...]
    file: str
    location: Location
    default_time_dimension: str | None = None  # the dimension its measures are placed on for metric_time
    entities: Mapping[str, Entity] = field(default_factory=dict)
    primary_entity: str | None = None  # MetricFlow's name for one row, without a key column (naming only)
    primary_key_locations: tuple[Location, ...] = ()  # where each primary_key entry is written

    def element(self, name: str) -> Dimension | Measure | None:
        return self.dimensions.get(name) or self.measures.get(name)

    def time_dimension_of(self, measure: Measure) -> Dimension | None:
        """The measure's place on the common time axis: its own time_dimension, else the model's default."""
        name = measure.time_dimension or self.default_time_dimension
        return self.dimensions.get(name) if name else None

    def owns(self, entity: str) -> bool:
        found = self.entities.get(entity)
        return (found is not None and found.owner) or entity == self.primary_entity


@dataclass(frozen=True, slots=True)
class JoinEdge:
    index: int
    from_model: str
    to_model: str
    key: str
    relationship: str
    type: str
    left: str
    right: str
    left_node: exp.Expression
    right_node: exp.Expression
    preferred: bool
    location: Location
    pairs: tuple[tuple[exp.Expression, exp.Expression], ...] = ()  # a composite key: every (left, right) pair

    def key_pairs(self) -> tuple[tuple[exp.Expression, exp.Expression], ...]:
        """The (left, right) expressions that must all be equal for two rows to join."""
        return self.pairs or ((self.left_node, self.right_node),)


@dataclass(frozen=True, slots=True)
class CustomGrain:
    """A custom granularity of the time spine (MetricFlow's `custom_granularities`): `name` is the grain a query
    writes (`metric_time__fiscal_quarter`), `column` the spine's column holding each day's period."""

    name: str
    column: str
    location: Location


@dataclass(frozen=True, slots=True)
class TimeSpine:
    table: str
    column: str
    table_node: exp.Table
    custom_grains: Mapping[str, CustomGrain] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    row_filters: tuple[str, ...]
    row_filter_nodes: tuple[exp.Expression, ...]
    hidden: tuple[str, ...]
    location: Location
    # the role's SQL shown with its row filters' values spelled out (by default they are named, not shown)
    show_filters: bool = False


@dataclass(frozen=True, slots=True)
class SourceColumn:
    name: str
    type: str | None
    description: str


@dataclass(frozen=True, slots=True)
class SourceTable:
    table: str
    description: str
    columns: Mapping[str, SourceColumn]


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """database.yml `cache:`: how long the service may reuse a result of this database, and a query whose
    answer changes when the data does (its value is part of every cache key, so new data means new keys)."""

    ttl_seconds: float | None = None  # None: the service's SMQ_RESULT_CACHE_TTL_S; 0: never cached
    refresh_key: str | None = None  # one SELECT returning one value, e.g. SELECT max(updated_at) FROM orders


@dataclass(frozen=True)
class SemanticLayer:
    """One database's validated layer."""

    name: str
    description: str
    dialect: str
    connection: Mapping[str, Any]
    time_spine: TimeSpine | None
    models: Mapping[str, Model]
    metrics: Mapping[str, Metric]
    joins: tuple[JoinEdge, ...]
    roles: Mapping[str, Role]
    sources: Mapping[str, SourceTable]
    directory: Path
    version: str  # a hash of the files' contents
    files: tuple[str, ...] = field(default=())
    # functions / table functions an admin allowed raw SQL to call beyond the dialect's allow-list
    # (database.yml `raw_sql:`; engine/allowlist.py)
    raw_sql_functions: frozenset[str] = field(default=frozenset())
    raw_sql_table_functions: frozenset[str] = field(default=frozenset())
    cache: CachePolicy = field(default=CachePolicy())  # database.yml `cache:` (the service's result cache)
    rollups: Rollups | None = None  # rollups.yml (engine/layer/rollups.py), bound by engine/rollups/bind.py
    # where database.yml writes each `connection:` setting ("": the block itself, or the file when there is none)
    connection_at: Mapping[str, Location] = field(default_factory=dict)
    # saved_queries.yml: named SMQs run by name (engine/layer/saved.py, engine/resolve/saved.py)
    saved_queries: Mapping[str, Any] = field(default_factory=dict)
    # database.yml `semantics:` "native" (smq's) or "metricflow" (what `smq import dbt` writes): where the two differ on
    # purpose, which one the layer answers with (a cumulative metric's default period_agg and periods, a derived
    # metric's division by zero, the joins of a dimension-only query; docs/dbt.md lists each)
    semantics: str = "native"

    @cached_property
    def has_entities(self) -> bool:
        """Whether any model declares MetricFlow entities: asked by every compile, so once per layer, not a scan
        of every model each time (a layer is immutable)."""
        return any(m.entities for m in self.models.values())

    @cached_property
    def memo(self) -> LruCache[tuple, Any]:
        """What later stages derive from this layer alone and would otherwise redo per query (its metrics' filters,
        parsed and checked), kept with it: a layer is immutable, so an entry never goes stale."""
        return LruCache(4096)

    @cached_property
    def element_kinds(self) -> Mapping[str, str]:
        """Every `Model__element` name mapped to 'dimension' or 'measure'; read-only."""
        out: dict[str, str] = {}
        for model in self.models.values():
            for d in model.dimensions.values():
                out[d.qualified_name] = "dimension"
            for m in model.measures.values():
                out[m.qualified_name] = "measure"
        return MappingProxyType(out)
