"""The join graph: typed edges between models, walked in either direction.

Paths come from networkx (all shortest paths over a multigraph, so parallel edges such as
two roles of the same nation table are distinct paths), built on the first path asked for: importing
networkx costs about a third of a second, and a single-model query never needs it. A path is refused when it is not
unique, unless preferred edges break the tie; the error lists every candidate and the
dotted edge-key syntax that picks one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING

from ..errors import QueryError
from .model import JoinEdge, Model

if TYPE_CHECKING:
    import networkx as nx

FLIP = {"many_to_one": "one_to_many", "one_to_many": "many_to_one", "one_to_one": "one_to_one"}


@dataclass(frozen=True, slots=True)
class Step:
    """One edge walked in one direction."""

    edge: JoinEdge
    forward: bool

    @property
    def source(self) -> str:
        return self.edge.from_model if self.forward else self.edge.to_model

    @property
    def target(self) -> str:
        return self.edge.to_model if self.forward else self.edge.from_model

    @property
    def relationship(self) -> str:
        return self.edge.relationship if self.forward else FLIP[self.edge.relationship]

    @property
    def fans_out(self) -> bool:
        return self.relationship == "one_to_many"

    @property
    def key(self) -> str:
        return self.edge.key


Path = tuple[Step, ...]


def with_partitions(edges: Iterable[JoinEdge], models: Mapping[str, Model]) -> list[JoinEdge]:
    """Each edge between two models that both declare a partition dimension of the same name (`is_partition`,
    MetricFlow's partitioned join) also joins on it: a daily snapshot keyed by (customer, day) meets an order on
    its customer AND its day, so the edge stays many_to_one (fan-out checks read the declared relationship).
    Done once at load time; the edge's `left`/`right` texts list every pair."""
    out = []
    for edge in edges:
        source, target = models.get(edge.from_model), models.get(edge.to_model)
        shared = [] if source is None or target is None else [
            (dim, target.dimensions[name]) for name, dim in source.dimensions.items()
            if dim.partition and name in target.dimensions and target.dimensions[name].partition]
        if not shared:
            out.append(edge)
            continue
        pairs = (*edge.key_pairs(), *((a.node, b.node) for a, b in shared))
        out.append(replace(edge, pairs=pairs, left=", ".join([edge.left, *(a.expr for a, _ in shared)]),
                           right=", ".join([edge.right, *(b.expr for _, b in shared)])))
    return out


def path_text(start: str, path: Path) -> str:
    """`OrderItemsModel -[order]-> OrdersModel -[customer]-> CustomersModel`."""
    out = start
    for step in path:
        out += f" -[{step.key}]-> {step.target}"
    return out


def path_keys(path: Path) -> str:
    return ".".join(step.key for step in path)


class JoinGraph:
    """Shortest, unambiguous join paths between models; results are memoised."""

    def __init__(self, models: Mapping[str, Model], edges: Iterable[JoinEdge]) -> None:
        self.models = tuple(sorted(models))
        self.edges = tuple(edges)
        self._cache: dict[tuple[str, str], Path] = {}

    @cached_property
    def graph(self) -> nx.MultiGraph:
        """The models as a networkx multigraph (one edge per join), made when first needed."""
        import networkx as nx

        graph = nx.MultiGraph()
        graph.add_nodes_from(self.models)
        names = set(self.models)
        for edge in self.edges:
            if edge.from_model in names and edge.to_model in names and edge.from_model != edge.to_model:
                graph.add_edge(edge.from_model, edge.to_model, key=edge.index, edge=edge)
        return graph

    def steps_from(self, model: str) -> list[Step]:
        """Every edge touching a model, walked away from it, in declaration order."""
        out = [Step(e, True) for e in self.edges if e.from_model == model and e.to_model != model]
        out += [Step(e, False) for e in self.edges if e.to_model == model and e.from_model != model]
        return sorted(out, key=lambda s: s.edge.index)

    def walk(self, start: str, keys: list[str], element: str, target: str | None = None) -> Path:
        """Follow named edge keys from a model (role-playing references).

        Several edges may share a key (an entity joined to every model keyed by it, as MetricFlow
        projects declare them): a hop then takes the edge from which the remaining keys reach `target`,
        the model the element belongs to.
        """
        path: list[Step] = []
        current = start
        for i, key in enumerate(keys):
            options = [s for s in self.steps_from(current) if s.key == key]
            if len(options) > 1 and target is not None:
                options = [s for s in options if self._leads_to(s, keys[i + 1:], target)] or options
            if not options:
                valid = sorted({s.key for s in self.steps_from(current)})
                from ..errors import nearest

                raise QueryError(
                    f"'{element}': no join edge with key '{key}' from {current} (edges from {current}: {', '.join(valid) or 'none'})",
                    code="unknown_join_key",
                    suggestions=nearest(key, valid, 2),
                )
            if len(options) > 1:
                listing = "; ".join(f"{s.source} -[{s.key}]-> {s.target}" for s in options)
                raise QueryError(f"'{element}': edge key '{key}' is ambiguous from {current}: {listing}", code="ambiguous_join_key")
            path.append(options[0])
            current = options[0].target
        return tuple(path)

    def _leads_to(self, step: Step, rest: list[str], target: str) -> bool:
        """Whether the keys `rest`, walked from where `step` arrives, can end at `target`."""
        if not rest:
            return step.target == target
        return any(self._leads_to(s, rest[1:], target) for s in self.steps_from(step.target) if s.key == rest[0])

    def walk_through(self, start: str, keys: list[str], element: str, target: str | None = None) -> Path:
        """Like walk, but a path named from another model may pass through `start`.

        In a query mixing OrderItemsModel and OrdersModel measures, `order.customer.nation.X` is
        walked in full from OrderItemsModel, and from OrdersModel (where the `order` edge arrives)
        as `customer.nation.X`: both measures then group by the same role.
        """
        try:
            return self.walk(start, keys, element, target)
        except QueryError as first:
            for i in range(1, len(keys)):
                arrives = [e for e in self.edges if e.key == keys[i - 1] and start in (e.from_model, e.to_model)]
                if not arrives:
                    continue
                try:
                    return self.walk(start, keys[i:], element, target)
                except QueryError:
                    continue
            raise first

    def shortest_paths(self, start: str, target: str) -> list[Path]:
        """Every shortest path (as edge steps) between two models; [] when unreachable."""
        if start == target:
            return [()]
        import networkx as nx

        try:
            node_paths = list(nx.all_shortest_paths(self.graph, start, target))
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return []
        paths: list[Path] = []
        for nodes in node_paths:
            options_per_hop = []
            for a, b in zip(nodes, nodes[1:]):
                hop = []
                for data in self.graph.get_edge_data(a, b).values():
                    edge: JoinEdge = data["edge"]
                    hop.append(Step(edge, edge.from_model == a))
                options_per_hop.append(sorted(hop, key=lambda s: s.edge.index))
            paths.extend(tuple(combo) for combo in product(*options_per_hop))
        return sorted(paths, key=lambda p: [s.edge.index for s in p])

    def resolve(self, start: str, target: str, element: str) -> Path:
        """The one path from `start` to `target`, or a QueryError listing the candidates."""
        cached = self._cache.get((start, target))
        if cached is not None:
            return cached
        paths = self.shortest_paths(start, target)
        if not paths:
            raise QueryError(
                f"'{element}': {target} cannot be reached from {start} through joins.yml",
                code="unreachable_model",
            )
        if len(paths) > 1:
            best = max(sum(s.edge.preferred for s in p) for p in paths)
            preferred = [p for p in paths if sum(s.edge.preferred for s in p) == best]
            if best > 0 and len(preferred) == 1:
                paths = preferred
            else:
                listing = "; ".join(f"{path_text(start, p)} (write {path_keys(p)}.{element})" for p in paths)
                raise QueryError(
                    f"'{element}' is ambiguous from {start}: {len(paths)} join paths of equal length: {listing}. "
                    "Name the path by its edge keys, or mark one edge `preferred: true` in joins.yml",
                    code="ambiguous_path",
                    suggestions=[f"{path_keys(p)}.{element}" for p in paths],
                )
        self._cache[(start, target)] = paths[0]
        return paths[0]

    def reachable(self, start: str) -> set[str]:
        if start not in self.models:
            return set()
        import networkx as nx

        return set(nx.node_connected_component(self.graph, start))
