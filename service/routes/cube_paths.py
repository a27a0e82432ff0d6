"""Join paths in Cube's spelling: `OrderItemsModel.OrdersModel.CustomersModel.NationsModel.country`.

Cube names a member reached through joins by the cubes walked, then the member (its `A.B.C.dim` join
paths, the `join_path` of Cube's views): the first cube is where the walk starts, the last the member's
own. The layer names the same path by its edge keys, walked from the measure's model
(`order.customer.nation.NationsModel__country`, docs/smq.md). `/meta` lists, under each cube with
measures, a member per path for every dimension that the cube reaches by more than one path (the
customer's country and the supplier's country), so a Cube front end can offer both.
"""

from __future__ import annotations

import re
from typing import Any

from engine import Layer
from engine.errors import Location, QueryError, nearest


def _err(message: str, where: str, code: str, suggestions: list[str] | None = None) -> QueryError:
    return QueryError(message, code=code, location=Location(field=f"query.{where}"), suggestions=suggestions or ())


def _neighbours(layer: Layer, model: str) -> dict[str, set[str]]:
    """Model -> the edge keys joining it to `model` (edges are walked both ways)."""
    out: dict[str, set[str]] = {}
    for edge in layer.semantic.joins:
        if edge.from_model == model and edge.to_model != model:
            out.setdefault(edge.to_model, set()).add(edge.key)
        elif edge.to_model == model and edge.from_model != model:
            out.setdefault(edge.from_model, set()).add(edge.key)
    return out


def path_element(layer: Layer, member: str, where: str) -> str:
    """`A.B.C.dim` (cubes walked, then the member) -> the layer's `keyAB.keyBC.C__dim`."""
    parts = member.split(".")
    cubes, name = parts[:-1], parts[-1]
    for cube in cubes:
        if cube not in layer.models:
            raise _err(f"'{member}': '{cube}' is not a cube (a model) of this layer", where, "unknown_model",
                       nearest(cube, list(layer.models), 2))
    keys = []
    for here, there in zip(cubes, cubes[1:]):
        joined = _neighbours(layer, here)
        found = joined.get(there)
        if not found:
            raise _err(f"'{member}': {there} is not joined to {here} in joins.yml; a join path names each cube walked "
                       f"(from {here}: {', '.join(sorted(joined)) or 'no joins'})", where, "unknown_join_key",
                       nearest(there, sorted(joined), 2))
        if len(found) > 1:
            raise _err(f"'{member}': {here} and {there} are joined by several edges ({', '.join(sorted(found))}); "
                       "this path cannot name one of them (use /v1/databases/{db}/query with the edge key)", where,
                       "ambiguous_join_key")
        keys.append(next(iter(found)))
    return f"{'.'.join(keys)}.{cubes[-1]}__{name}"


def path_member(layer: Layer, start: str, keys: list[str], element: str) -> str:
    """The layer's path (edge keys walked from `start`) to `element` (`Model__dim`) in Cube's spelling."""
    model, _, name = element.partition("__")
    steps = layer.graph.walk(start, keys, element, target=model)
    return ".".join([start, *(step.target for step in steps), name.replace("__", ".")])


def ambiguous_paths(layer: Layer, start: str, target: str) -> list[list[str]]:
    """The edge-key paths from `start` to `target` when there are several of equal length that never fan out
    (walk only many-to-one or one-to-one edges: a role-playing dimension such as a customer's or a supplier's
    country); [] otherwise."""
    element = f"{target}__x"
    try:
        layer.graph.resolve(start, target, element)
    except QueryError as err:
        if err.code != "ambiguous_path":
            return []
        paths = [s.rsplit(".", 1)[0].split(".") for s in err.suggestions]
        plain = [keys for keys in paths if not any(step.fans_out for step in layer.graph.walk(start, keys, element, target))]
        return plain if len(plain) > 1 else []
    return []


def cube_suggestions(layer: Layer, message: str, suggestions: list[str]) -> tuple[str, list[str]]:
    """An ambiguous_path error's message and suggestions with the layer's paths in Cube's spelling."""
    found = re.search(r"is ambiguous from (\w+)", message)
    if found is None:
        return message, suggestions
    start = found.group(1)
    out = []
    for text in suggestions:
        keys, _, element = text.rpartition(".")
        try:
            member = path_member(layer, start, keys.split("."), element)
        except QueryError:
            member = text
        message = message.replace(f"write {text})", f"write {member})")
        out.append(member)
    message = message.replace("Name the path by its edge keys, or", "Name the path by the cubes it walks, or")
    return message, out


def path_dimensions(layer: Layer, models: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    """Per cube with measures: (Cube member, layer element, the dimension's listing) for each dimension it reaches
    by several paths, from the listing `models` (Layer.elements: what the caller's role sees)."""
    out: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for root in models:
        if not root["measures"]:
            continue
        for other in models:
            if other["name"] == root["name"]:
                continue
            for keys in ambiguous_paths(layer, root["name"], other["name"]):
                for dim in other["dimensions"]:
                    element = f"{'.'.join(keys)}.{dim['name']}"
                    out.setdefault(root["name"], []).append((path_member(layer, root["name"], keys, dim["name"]), element, dim))
    return out
