"""Known values: the distinct text values of each model's text dimensions, sampled from the database.

Questions name values ("customers in France", "the 'Ford Motor Company'") far more often than the
columns holding them; indexing a few values per column lets such a question find its model. The
sample is read through the role's filtered sources (a role never indexes rows it may not see) with
sqlglot-built queries, a small row cap and a short timeout, once per layer version.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sqlglot import exp

from engine import Layer
from engine.errors import EngineError

if TYPE_CHECKING:
    from smq_db.executors import Executor

log = logging.getLogger("smq.agent")

PER_COLUMN = 50
MAX_COLUMNS = 400  # a huge layer samples its first columns only: building must stay cheap
TIMEOUT_S = 5.0


def sample_values(layer: Layer, executor: Executor, role: str | None = None, *, per_column: int = PER_COLUMN,
                  max_columns: int = MAX_COLUMNS) -> dict[str, list[str]]:
    """Model -> sampled text values of its visible string dimensions (failures are skipped, logged)."""
    role_obj = layer.role(role)
    hidden = layer.visibility(role_obj.name if role_obj else None).hidden
    sources = layer.restricted_sources(role)
    out: dict[str, list[str]] = {}
    budget = max_columns
    for name, model in layer.models.items():
        values: list[str] = []
        for dim in model.dimensions.values():
            if dim.type != "string" or dim.qualified_name in hidden or budget <= 0:
                continue
            budget -= 1
            source = sources.get(name, model.source).copy()
            alias = exp.to_identifier("__v", quoted=True)
            source.set("alias", exp.TableAlias(this=alias))
            column = _qualified(dim.node, "__v")
            query = (exp.select(column.as_("value")).distinct().from_(source)
                     .where(exp.Not(this=exp.Is(this=column.copy(), expression=exp.Null()))).limit(per_column))
            try:
                rows = executor.execute(query.sql(dialect=layer.dialect), max_rows=per_column, timeout_s=TIMEOUT_S).rows
            except EngineError as err:
                log.debug("no values sampled for %s: %s", dim.qualified_name, err.message)
                continue
            values += [v for (v, *_) in rows if isinstance(v, str) and not v.replace(".", "").isdigit()]
        out[name] = values
    return out


def _qualified(node: exp.Expression, alias: str) -> exp.Expression:
    out = node.copy()
    for column in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        column.set("table", exp.to_identifier(alias, quoted=True))
    return out
