"""The discipline of a run, enforced: what the final SQL may read, and the run's budgets.

The agent may compose any read-only SQL, but only over building blocks the compiler has
shown it: a physical table is usable once it appeared in a compiled SMQ of the same run. That
keeps the agent from guessing schema (INFORMATION_SCHEMA, invented tables, semantic model names
used as tables). A refusal is not fatal: its message says which table was refused and which
tables the run has seen, so the model can compile one more SMQ or fix its SQL and go on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlglot import exp

from engine.access.readpolicy import (
    CATALOG_REFUSED,
    NOT_A_TABLE,
    RAW_SQL_REFUSED,
    TABLE_FUNCTION_REFUSED,
    TABLE_NOT_IN_LAYER,
    ReadPolicy,
    TableKey,
    bare_sql,
    cte_names,
    is_catalog,
    is_cte_reference,
    table_key,
)
from engine.errors import EngineError
from smq_db.executors import check_read_only

__all__ = ["GuardRefusal", "RunGuards", "TableKey", "bare_sql", "cte_names", "is_catalog", "physical_tables", "table_key"]


class GuardRefusal(EngineError):
    """The final SQL breaks a rule of the run; the message tells the model what to do instead."""

    code = "sql_refused"


def physical_tables(tree: exp.Expr, dialect: str) -> dict[TableKey, str]:
    """The physical tables a compiled query reads (its CTE references excluded), as key -> SQL text."""
    ctes = cte_names(tree)
    out: dict[TableKey, str] = {}
    for table in tree.find_all(exp.Table):
        key = table_key(table)
        if not key or (len(key) == 1 and key[0] in ctes):
            continue
        out.setdefault(key, bare_sql(table, dialect))
    return out


@dataclass
class RunGuards:
    """The state one run's rules need: tables seen in compiler output, and the budgets used so far."""

    dialect: str
    model_names: Iterable[str] = ()
    max_smq_calls: int = 20
    max_repairs: int = 3
    seen: dict[TableKey, str] = field(default_factory=dict)
    smq_calls: int = 0
    failed_executes: int = 0
    policy: ReadPolicy | None = None  # the layer's read policy (engine.access.readpolicy); built from the names when absent

    def __post_init__(self) -> None:
        if self.policy is None:
            self.policy = ReadPolicy(self.dialect, (), list(self.model_names))

    # -- budgets ---------------------------------------------------------------------------
    def take_smq_call(self) -> bool:
        """Count one convertSmqToSql call; False once the budget is used up (the call is then refused)."""
        if self.smq_calls >= self.max_smq_calls:
            return False
        self.smq_calls += 1
        return True

    @property
    def smq_calls_left(self) -> int:
        return max(0, self.max_smq_calls - self.smq_calls)

    def note_failed_execute(self) -> bool:
        """Count a failed execute; True while a repair is still allowed."""
        self.failed_executes += 1
        return self.failed_executes <= self.max_repairs

    # -- tables ----------------------------------------------------------------------------
    def note_compiled(self, tree: exp.Expr) -> None:
        """Remember the physical tables of a successful compile: they become usable in the final SQL."""
        for key, text in physical_tables(tree, self.dialect).items():
            self.seen.setdefault(key, text)

    def _seen_match(self, key: TableKey) -> bool:
        """A reference matches a seen table when it is that table's name as written, or a shorter suffix of it."""
        return any(len(key) <= len(seen) and seen[len(seen) - len(key):] == key for seen in self.seen)

    def seen_list(self) -> str:
        return ", ".join(sorted(self.seen.values())) if self.seen else "none yet (call convertSmqToSql first)"

    def check_final(self, sql: str) -> exp.Expression:
        """The parsed final SQL if it keeps every rule; raises GuardRefusal (or the read-only guard's errors).

        ReadOnlyViolation and SqlSyntaxError come from the service's read-only guard unchanged, so the
        caller can tell a refused statement from one that merely does not parse.
        """
        tree = check_read_only(sql, self.dialect)
        policy = self.policy
        assert policy is not None
        knows_layer = bool(policy.physical)  # built from model names only (no tables): the seen tables decide
        problems: list[tuple[str, str]] = []  # (code, advice for the model)
        for node in tree.walk():
            refused = None if isinstance(node, exp.Table) else policy.node_finding(node)
            if refused is not None:
                problems.append((refused.code, refused.message))
            if not isinstance(node, exp.Table):
                continue
            finding = policy.table_finding(node)
            code = finding.kind if finding is not None else ""
            if code == TABLE_FUNCTION_REFUSED:
                problems.append((code, f"'{node.sql(dialect=self.dialect)}' is a table function; read physical tables instead"))
                continue
            if not isinstance(node.this, exp.Identifier) or is_cte_reference(node):
                continue  # an allowed table function (unnest, generate_series ...) or the query's own CTE
            key = table_key(node)
            shown = bare_sql(node, self.dialect)
            if code == CATALOG_REFUSED or is_catalog(key):
                problems.append((CATALOG_REFUSED, f"'{shown}' is a system catalog; INFORMATION_SCHEMA and other catalogs are "
                                 "not available (use getModelDataElements to learn the models)"))
            elif code == TABLE_NOT_IN_LAYER and knows_layer:
                problems.append((RAW_SQL_REFUSED, f"table '{shown}' is not a table of this database's semantic layer; only "
                                 "its tables (as convertSmqToSql writes them) and your own CTEs may be used"))
            elif self._seen_match(key):
                continue
            elif code == NOT_A_TABLE:
                problems.append((code, f"'{shown}' is a semantic model, not a table: model names exist only in SMQs; use the "
                                 f"physical table the compiler wrote for it (compile an SMQ over "
                                 f"{policy.models[key[-1]]} to see it)"))
            else:
                problems.append((GuardRefusal.code,
                                 f"table '{shown}' has not appeared in any compiled SQL of this run; only tables lifted "
                                 "from convertSmqToSql output (and your own CTEs) may be used"))
        if problems:
            unique = list(dict.fromkeys(text for _, text in problems))
            raise GuardRefusal("execute refused: " + "; ".join(unique) + f". Physical tables seen so far: {self.seen_list()}.",
                               code=problems[0][0])
        return tree
