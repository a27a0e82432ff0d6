"""DuckDB: standard dates, QUANTILE_* percentiles, OFFSET 0 as the role fence (the embedded demo's engine)."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, call


class DuckDB(Dialect):
    engine = Engine.DUCKDB
    display = "DuckDB"
    url_schemes = ("duckdb",)
    file_based = True
    isolated_by_default = True  # memory_limit does not hold for repeat()/string_agg (docs/security.md)
    default_schema = "main"
    executor = "smq_db.executors.duckdb:from_settings"
    introspector = "smq_db.catalog:introspect_duckdb"
    fenced = True
    paramstyle = "qmark"
    bulk_load = "columns"  # each column bound as one list and unnested: executemany runs a statement per row
    raw_sql_functions = frozenset("""
        list_reduce list_apply list_select list_where list_zip list_position list_count list_min list_max
        list_sum list_avg array_has array_has_any array_has_all struct_insert regexp_full_match
        date_sub datesub time_bucket epoch_to_timestamp to_timestamp_ms make_timestamptz
        bar fsum favg sumkahan kahan_sum hash string_agg_distinct
    """.split())
    raw_sql_table_functions = frozenset(("range",))

    def exact_percentile(self, value: exp.Expression, p: exp.Expression, discrete: bool) -> exp.Expression:
        return call("QUANTILE_DISC" if discrete else "QUANTILE_CONT", value, p)

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        return call("APPROX_QUANTILE", value, p)

    def fence(self, query: exp.Select) -> exp.Select:
        """DuckDB keeps a LIMIT/OFFSET node between the filter and the outer query."""
        query.set("offset", exp.Offset(expression=exp.Literal.number(0)))
        return query
