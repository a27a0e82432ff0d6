"""MetricFlow's where-filter templates and group-by references, read without running Jinja.

`{{ Dimension('listing__is_lux') }}`, `{{ TimeDimension('metric_time', 'month') }}`, `{{ Entity('listing') }}`,
`{{ Metric('bookings', group_by=['listing']) }}`, with `.grain('month')`, `.date_part('year')` and
`.descending(True)` calls after them. Each template is parsed as a Python expression (the `ast` module,
never evaluated) and accepted only in these shapes, so a filter cannot smuggle anything else in.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

TEMPLATE = re.compile(r"\{\{\s*(.*?)\s*\}\}", re.DOTALL)
CALLS = ("Dimension", "TimeDimension", "Entity", "Metric")


class TemplateError(ValueError):
    """A template this reader does not understand; the message says what was expected."""


@dataclass(frozen=True)
class Reference:
    kind: str  # Dimension | TimeDimension | Entity | Metric
    name: str  # as written: 'listing__is_lux', 'metric_time'
    grain: str | None = None
    date_part: str | None = None
    group_by: tuple[str, ...] = ()
    descending: bool = False
    entity_path: tuple[str, ...] = field(default=())

    @property
    def parts(self) -> list[str]:
        return self.name.split("__")


def parse_reference(text: str) -> Reference:
    """One call such as `Dimension('listing__is_lux').grain('month')` (the text inside `{{ }}`)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise TemplateError(f"'{text}' is not a MetricFlow reference (write e.g. Dimension('entity__dimension'))") from None
    modifiers: list[tuple[str, list[ast.expr]]] = []
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        modifiers.append((node.func.attr, node.args))
        node = node.func.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS):
        raise TemplateError(f"'{text}': expected one of {', '.join(CALLS)}(...)")
    kind = node.func.id
    args = [_literal(a, text) for a in node.args]
    if not args or not isinstance(args[0], str):
        raise TemplateError(f"'{text}': {kind} takes the element's name as a string first")
    kwargs = {k.arg: _literal(k.value, text) for k in node.keywords if k.arg}
    grain = args[1] if kind == "TimeDimension" and len(args) > 1 else kwargs.get("time_granularity_name") or kwargs.get("time_granularity")
    date_part = kwargs.get("date_part_name") or kwargs.get("date_part")
    group_by = kwargs.get("group_by") or (args[1] if kind == "Metric" and len(args) > 1 else ())  # Metric('x', ['listing'])
    entity_path = kwargs.get("entity_path") or ()
    descending = False
    for name, margs in reversed(modifiers):
        values = [_literal(a, text) for a in margs]
        if name == "grain" and values:
            grain = values[0]
        elif name == "date_part" and values:
            date_part = values[0]
        elif name == "descending":
            descending = bool(values[0]) if values else True
        else:
            raise TemplateError(f"'{text}': unknown modifier .{name}() (MetricFlow has .grain(), .date_part(), .descending())")
    return Reference(kind, args[0], str(grain).lower() if grain else None, str(date_part).lower() if date_part else None,
                     _strings(group_by), descending, _strings(entity_path))


def _strings(value: object) -> tuple[str, ...]:
    """A string or a list of them (group_by=, entity_path=) as a tuple of strings."""
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value) if isinstance(value, (list, tuple)) else ()


def _literal(node: ast.expr, text: str) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise TemplateError(f"'{text}': arguments must be plain strings, lists or booleans") from None


def translate(sql: str, rename: Callable[[Reference], str]) -> str:
    """Every `{{ ... }}` in a where-filter replaced by `rename(reference)`; the SQL around it kept as written."""
    return TEMPLATE.sub(lambda m: rename(parse_reference(m.group(1))), sql)


def references(sql: str) -> list[Reference]:
    return [parse_reference(m.group(1)) for m in TEMPLATE.finditer(sql)]


def template_name(ref: Reference) -> str:
    if ref.kind == "Metric":  # a metric grouped by entities: the native METRIC(metric, entity, ...) (metric_filters.py)
        if not ref.group_by:
            raise TemplateError(f"{{{{ Metric('{ref.name}') }}}} needs group_by=[...]: the entities the metric is grouped by "
                                "and joined on (without it, filter on the metric itself)")
        return f"METRIC({', '.join((ref.name, *ref.group_by))})"
    name = "__".join([*ref.entity_path, ref.name])
    if ref.grain:
        name += f"__{ref.grain}"
    if ref.date_part:
        name += f"__extract_{ref.date_part}"
    return name
