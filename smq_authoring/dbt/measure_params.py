"""MetricFlow's measure vocabulary on a layer's measure: percentile / median aggregation parameters
(agg_params) and semi-additive measures (non_additive_dimension), each checked with its file:line.

The layer keeps MetricFlow's words (docs/semantic-layer.md): `percentile`, `use_discrete_percentile`,
`use_approximate_percentile` next to `agg`, and `non_additive_dimension` as written, its
window_groupings (entities) being the model's dimensions of the same names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import Location

from .source import Found

Refuse = Callable[[Location, str], None]


def percentile_params(found: Found, model: str, item: Any, refuse: Refuse) -> dict[str, Any] | None:
    """agg: percentile's agg_params as layer keys; None (refused) when the percentile is missing or out of range."""
    name = item.get("name")
    params = item.get("agg_params") or {}
    value = params.get("percentile") if isinstance(params, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        refuse(found.at(item, "agg_params" if "agg_params" in item else "agg"),
               f"measure '{name}' of {model}: agg: percentile needs agg_params.percentile, a fraction from 0 to 1 (got {value!r})")
        return None
    out: dict[str, Any] = {"percentile": float(value)}
    for key in ("use_discrete_percentile", "use_approximate_percentile"):
        if params.get(key):
            out[key] = True
    return out


def non_additive(found: Found, model: str, item: Any, dimensions: dict[str, dict[str, Any]], refuse: Refuse) -> dict[str, Any] | None:
    """non_additive_dimension with its time dimension and window groupings checked against the model."""
    name = item.get("name")
    raw = item.get("non_additive_dimension") or {}
    where = found.at(item, "non_additive_dimension")
    dim = str(raw.get("name") or "") if isinstance(raw, dict) else ""
    if (dimensions.get(dim) or {}).get("type") not in ("date", "timestamp"):
        refuse(where, f"measure '{name}' of {model}: non_additive_dimension '{dim}' is not a time dimension of {model}")
        return None
    choice = str(raw.get("window_choice") or "min").lower()
    if choice not in ("min", "max"):
        refuse(where, f"measure '{name}' of {model}: non_additive_dimension window_choice '{choice}' (min or max)")
        return None
    groupings = [str(g) for g in raw.get("window_groupings") or []]
    missing = [g for g in groupings if g not in dimensions]
    if missing:
        refuse(where, f"measure '{name}' of {model}: window_groupings '{missing[0]}' is not an entity or dimension of {model}")
        return None
    out: dict[str, Any] = {"name": dim, "window_choice": choice}
    if groupings:
        out["window_groupings"] = groupings
    return out
