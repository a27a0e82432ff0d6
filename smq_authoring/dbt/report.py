"""What an import reads of each dbt definition, and a note for everything it does not: never dropped silently.

A key the importer does not map is listed as `file:line: note: ...` (with why): it changes no answer (dbt's
exports, caches, tags, groups) or is not in the layer (entity roles, model labels). Refusals (convert.py) stop an import; notes never do. Empty values (the `label: null`,
`config: {meta: {}}` a manifest writes for every definition) say nothing and are not listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import Location

from .source import DbtSources, Found

IGNORED = ("metadata",)  # the manifest's note of where a definition was written: no meaning of its own
READ = {
    "semantic_model": ("name", "description", "model", "node_relation", "defaults", "entities", "dimensions", "measures",
                       "primary_entity"),
    "entity": ("name", "type", "expr", "description"),
    "dimension": ("name", "type", "type_params", "expr", "description", "label", "meta", "is_partition"),
    "measure": ("name", "agg", "description", "create_metric", "expr", "agg_params", "non_additive_dimension",
                "agg_time_dimension", "label", "meta"),
    "metric": ("name", "description", "type", "type_params", "filter", "label", "meta", "time_granularity"),
    "saved_query": ("name", "description", "label", "query_params"),
}
WHY = {
    "label": "the layer's models and entities have no label (the description is kept)",
    "exports": "exports write the saved query's rows to a table in dbt; smq runs the saved query by name instead",
    "tags": "tags are dbt's selection labels; they change no answer",
    "role": "entity roles are not part of the layer",
    "group": "dbt groups (ownership) change no answer",
}
CONFIG_READ = ("meta",)  # config.meta is an element's meta (formats.py); other config keys are dbt's own


def _empty(value: Any) -> bool:
    """Nothing said: null, empty, or a flag left off (a manifest writes `is_partition: false` everywhere)."""
    return value is None or value is False or value == {} or value == [] or value == ""


Note = Callable[[Location, str], None]


def _keys(found: Found, body: Any, kind: str, what: str, note: Note) -> None:
    if not isinstance(body, dict):
        return
    read = READ[kind]
    for key, value in body.items():
        if key in read or key in IGNORED or _empty(value):
            continue
        if key == "config" and isinstance(value, dict):
            for ckey, cvalue in value.items():
                if ckey in CONFIG_READ and kind in ("dimension", "measure", "metric"):
                    continue
                if not _empty(cvalue):
                    note(found.at(value, ckey), f"{what}: config.{ckey} not imported (dbt's own configuration; "
                                                f"it changes no answer)")
            continue
        reason = WHY.get(key, "not mapped by smq import dbt")
        note(found.at(body, key), f"{what}: '{key}' not imported ({reason})")


def unread_keys(sources: DbtSources, note: Note) -> None:
    """A note for every key of every definition the import does not read."""
    for found in sources.semantic_models:
        body, model = found.body, found.name
        _keys(found, body, "semantic_model", f"semantic model '{model}'", note)
        for plural, kind in (("entities", "entity"), ("dimensions", "dimension"), ("measures", "measure")):
            for item in body.get(plural) or []:
                if isinstance(item, dict):
                    _keys(found, item, kind, f"{kind} '{item.get('name')}' of {model}", note)
    for found in sources.metrics:
        _keys(found, found.body, "metric", f"metric '{found.name}'", note)
    for found in sources.saved_queries:
        _keys(found, found.body, "saved_query", f"saved query '{found.name}'", note)
