"""PostgreSQL: standard dates, exact percentiles only, typed NULLs in a UNION, OFFSET 0 as the role fence."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, data_type, lit, null_of_column, portable_step


class PostgreSQL(Dialect):
    engine = Engine.POSTGRES
    display = "PostgreSQL"
    aliases = ("postgresql",)
    url_schemes = ("postgresql", "postgres")
    default_port = 5432
    schema_setting = "schema"
    schema_default = "public"
    executor = "smq_db.executors.postgres:from_settings"
    introspector = "smq_db.catalog:introspect_postgres"
    folds_unquoted_to_lower = True
    fenced = True
    text_collation = "C"
    paramstyle = "format"
    raw_sql_functions = frozenset("""
        to_char to_number date_part age justify_interval regexp_matches regexp_split_to_array
        array_upper array_lower array_ndims array_dims array_remove array_replace string_agg jsonb_array_length
        jsonb_typeof json_typeof jsonb_build_object jsonb_build_array jsonb_agg json_agg jsonb_each_text
        json_each_text num_nonnulls num_nulls date_bin
    """.split())
    raw_sql_table_functions = frozenset("""
        json_each json_each_text jsonb_each jsonb_each_text json_array_elements jsonb_array_elements
        json_array_elements_text jsonb_array_elements_text regexp_split_to_table
    """.split())

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        shifted = exp.Add(this=value, expression=exp.Interval(this=lit(f"{count} {unit}"), unit=None))
        return exp.Cast(this=shifted, to=data_type("DATE"))

    def typed_null(self, cte: str, column: str) -> exp.Expression:
        """PostgreSQL types `NULL UNION ALL NULL` as text before it meets the numeric branch, then refuses the union."""
        return null_of_column(cte, column)

    def fence(self, query: exp.Select) -> exp.Select:
        """PostgreSQL neither pulls up a subquery with OFFSET nor pushes quals into it (the classic optimisation fence)."""
        query.set("offset", exp.Offset(expression=exp.Literal.number(0)))  # built directly: the builder would parse "0"
        return query
