"""The engine's shape holds: no import circle between any two of its modules (the stages' one direction is
import-linter's `layers` contract in pyproject.toml, run by .ci/run), and every plan node has its one visit."""

from __future__ import annotations

import dataclasses

import grimp
import networkx as nx

from engine.plan import nodes
from engine.render.visitor import QueryRenderer


def test_no_import_circle_inside_engine() -> None:
    graph = grimp.build_graph("engine", exclude_type_checking_imports=True)  # a type hint is not a run-time dependency
    imports = nx.DiGraph()
    for module in graph.modules:
        imports.add_edges_from((module, target) for target in graph.find_modules_directly_imported_by(module)
                               if target.startswith("engine"))
    cycles = sorted(" -> ".join(cycle) for cycle in nx.simple_cycles(imports))
    assert not cycles, "import circles inside engine/:\n" + "\n".join(cycles)


def test_every_plan_node_has_one_visit() -> None:
    kinds = [cls for cls in vars(nodes).values() if isinstance(cls, type) and issubclass(cls, nodes.Node) and cls is not nodes.Node]
    assert len(kinds) >= 12 and all(dataclasses.is_dataclass(cls) for cls in kinds)
    missing = [cls.__name__ for cls in kinds if not callable(getattr(QueryRenderer, f"visit_{cls.__name__}", None))]
    assert not missing, f"plan nodes without a visit in render/visitor.py: {missing}"
    frozen = [cls.__name__ for cls in kinds if not cls.__dataclass_params__.frozen]  # type: ignore[attr-defined]
    assert not frozen, f"plan nodes must be frozen: {frozen}"
