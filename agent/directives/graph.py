"""The join graph's part in directives: a model that bridges two relevant models is relevant too.

Questions name the things they are about ("singers", "concerts"), almost never the link table that
joins them (`singer_in_concert`): a retriever over names and descriptions misses it, yet no query
can be written without it. So once some models are relevant, the models on the short join paths
between them are added, with a reason naming the pair they connect.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from engine import Layer

Adjacency = Mapping[str, frozenset[str]]


def adjacency(layer: Layer) -> dict[str, frozenset[str]]:
    """Model -> its neighbours in joins.yml (edges walked both ways)."""
    out: dict[str, set[str]] = {name: set() for name in layer.models}
    for edge in layer.semantic.joins:
        if edge.from_model in out and edge.to_model in out and edge.from_model != edge.to_model:
            out[edge.from_model].add(edge.to_model)
            out[edge.to_model].add(edge.from_model)
    return {k: frozenset(v) for k, v in out.items()}


def shortest_path(adj: Adjacency, start: str, goal: str, max_hops: int) -> list[str] | None:
    """One shortest path start..goal of at most `max_hops` edges (ties broken by name: deterministic)."""
    if start == goal:
        return [start]
    parents: dict[str, str | None] = {start: None}
    frontier = deque([(start, 0)])
    while frontier:
        node, depth = frontier.popleft()
        if depth >= max_hops:
            continue
        for nxt in sorted(adj.get(node, ())):
            if nxt in parents:
                continue
            parents[nxt] = node
            if nxt == goal:
                path = [goal]
                while parents[path[-1]] is not None:
                    path.append(parents[path[-1]])  # type: ignore[arg-type]
                return path[::-1]
            frontier.append((nxt, depth + 1))
    return None


def bridges(adj: Adjacency, selected: Iterable[str], max_hops: int = 2) -> dict[str, tuple[str, str]]:
    """Models not in `selected` on a shortest path (<= max_hops edges) between two selected models.

    Returns bridge -> the pair it connects. Pairs already joined directly need no bridge.
    """
    chosen = list(dict.fromkeys(selected))
    found: dict[str, tuple[str, str]] = {}
    for i, a in enumerate(chosen):
        for b in chosen[i + 1:]:
            if b in adj.get(a, ()):
                continue
            path = shortest_path(adj, a, b, max_hops)
            for middle in (path or [])[1:-1]:
                if middle not in chosen:
                    found.setdefault(middle, (a, b))
    return found
