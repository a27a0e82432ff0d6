"""A client's raw SQL made ready to run: read-only guard, read policy, role, then regenerated text.

Every raw-SQL path (REST execute, the readQuery tool, MCP) calls `prepare_raw_sql`, so they run the
same checks in the same order, and the executor receives SQL regenerated from the checked tree
(`engine.access.readpolicy.ReadPolicy.render`), never the client's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp

from engine.access.readpolicy import policy_for
from engine.access.roles import apply_role_to_sql
from engine.layer.joins import JoinGraph
from engine.layer.model import Role, SemanticLayer

from .readonly import check_read_only


@dataclass(frozen=True)
class RawSql:
    tree: exp.Expression  # the client's query as parsed and checked
    run_tree: exp.Expression  # the query as the role may run it (filtered subqueries)
    sql: str  # what the executor runs: regenerated from run_tree


def prepare_raw_sql(sql: str, semantic: SemanticLayer, graph: JoinGraph, role: Role | None, *,
                    allow: Iterable[str] = ()) -> RawSql:
    """The checked, role-applied and regenerated query; raises the guard's, the policy's or the role's refusal.

    `allow` lists policy codes this caller decides itself (none for REST).
    """
    tree = check_read_only(sql, semantic.dialect)
    policy = policy_for(semantic)
    policy.check(tree, allow=allow)
    run_tree = apply_role_to_sql(tree, semantic, graph, role)
    return RawSql(tree, run_tree, policy.render(run_tree))
