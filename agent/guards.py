"""The discipline of a run, enforced: what the final SQL may read, and the run's budgets.

The paper's agent may compose any read-only SQL, but only over building blocks the compiler has
shown it: a physical table is usable once it appeared in a compiled SMQ of the same run. That
keeps the agent from guessing schema (INFORMATION_SCHEMA, invented tables, semantic model names
used as tables). A refusal is not fatal: its message says which table was refused and which
tables the run has seen, so the model can compile one more SMQ or fix its SQL and go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from sqlglot import exp

from engine.errors import EngineError
from smq_db.executors import check_read_only

TableKey = tuple[str, ...]  # lower-cased name parts, outermost first: ("main", "orders")

CATALOG_SCHEMAS = frozenset({"information_schema", "pg_catalog", "mysql", "performance_schema", "sys"})
CATALOG_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_sequence"})
CATALOG_PREFIXES = ("pg_", "sqlite_", "duckdb_")


class GuardRefusal(EngineError):
    """The final SQL breaks a rule of the run; the message tells the model what to do instead."""

    code = "sql_refused"


def table_key(table: exp.Table) -> TableKey:
    return tuple(p.name.lower() for p in table.parts)


def cte_names(tree: exp.Expr) -> set[str]:
    return {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}


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


def bare_sql(table: exp.Table, dialect: str) -> str:
    """A table reference as SQL text without its alias: `main.orders`."""
    return exp.Table(this=table.this.copy(), db=table.args.get("db"), catalog=table.args.get("catalog")).sql(dialect=dialect)


def is_catalog(key: TableKey) -> bool:
    name = key[-1]
    return (any(p in CATALOG_SCHEMAS for p in key[:-1]) or name in CATALOG_SCHEMAS or name in CATALOG_TABLES
            or name.startswith(CATALOG_PREFIXES))


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

    def __post_init__(self) -> None:
        self._models = {name.lower(): name for name in self.model_names}

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
        ctes = cte_names(tree)
        problems: list[str] = []
        for table in tree.find_all(exp.Table):
            if not isinstance(table.this, exp.Identifier):
                problems.append(f"'{table.sql(dialect=self.dialect)}' is a table function; read physical tables instead")
                continue
            key = table_key(table)
            shown = bare_sql(table, self.dialect)
            if len(key) == 1 and key[0] in ctes:
                continue
            if is_catalog(key):
                problems.append(f"'{shown}' is a system catalog; INFORMATION_SCHEMA and other catalogs are not available "
                                "(use getModelDataElements to learn the models)")
            elif self._seen_match(key):
                continue
            elif key[-1] in self._models:
                problems.append(f"'{shown}' is a semantic model, not a table: model names exist only in SMQs; use the "
                                f"physical table the compiler wrote for it (compile an SMQ over {self._models[key[-1]]} to see it)")
            else:
                problems.append(f"table '{shown}' has not appeared in any compiled SQL of this run; only tables lifted "
                                "from convertSmqToSql output (and your own CTEs) may be used")
        if problems:
            unique = list(dict.fromkeys(problems))
            raise GuardRefusal("execute refused: " + "; ".join(unique) + f". Physical tables seen so far: {self.seen_list()}.")
        return tree
