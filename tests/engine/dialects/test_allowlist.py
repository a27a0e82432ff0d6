"""The raw-SQL function allow-list (engine/allowlist.py): deny by default, per dialect, extendable per layer.

Compiled SMQ SQL and ordinary analyst SQL must pass; every name the deny list knows, the leaks of
issue 13 (settings, file paths, plans) and any unknown function are refused with a message naming
the function and how an admin allows it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import sqlglot

from engine import LayerValidationError, load_layer
from engine.access.allowlist import allowed_functions
from engine.access.readpolicy import FUNCTION_NOT_ALLOWED, TABLE_FUNCTION_REFUSED, ReadPolicy, policy_for
from engine.dialects.denylist import DENIED_FUNCTIONS

from ..conftest import MINI, write_layer

GOLDEN = Path(__file__).parents[1] / "golden"
DIALECTS = ("duckdb", "postgres", "mysql", "sqlite")


def refusals(sql: str, dialect: str, policy: ReadPolicy | None = None) -> list[tuple[str, str]]:
    policy = policy or ReadPolicy(dialect, [(("t",), "T"), (("u",), "U")])
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:  # a call sqlglot models with more arguments: try two
        tree = sqlglot.parse_one(sql.replace("(1)", "(1, 2)"), read=dialect)
    return [(f.code, f.shown) for f in policy.findings(tree) if f.code in (FUNCTION_NOT_ALLOWED, TABLE_FUNCTION_REFUSED)]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*.sql")), ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_compiled_sql_of_every_golden_case_passes_on_its_dialect(path: Path) -> None:
    assert refusals(path.read_text(encoding="utf-8"), path.stem) == []


ANALYST_SQL = [
    "SELECT status, COUNT(*), COUNT(DISTINCT c), SUM(x), AVG(x), MIN(d), MAX(d) FROM t GROUP BY status HAVING COUNT(*) > 1",
    "SELECT CASE WHEN x > 1 THEN 'a' ELSE 'b' END, CAST(x AS VARCHAR), COALESCE(a, b), NULLIF(a, 0) FROM t",
    "SELECT UPPER(s), LOWER(s), TRIM(s), SUBSTRING(s, 1, 2), LENGTH(s), REPLACE(s, 'a', 'b'), CONCAT(s, 'x') FROM t",
    "SELECT ABS(x), ROUND(x, 2), FLOOR(x), CEIL(x), SQRT(x), POWER(x, 2), MOD(n, 3), LN(x), EXP(x), SIGN(x) FROM t",
    "SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b), RANK() OVER (ORDER BY b), LAG(x) OVER (ORDER BY b), "
    "LEAD(x, 1) OVER (ORDER BY b), SUM(x) OVER (ORDER BY b ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
    "NTILE(4) OVER (ORDER BY x), FIRST_VALUE(x) OVER (ORDER BY b), DENSE_RANK() OVER (ORDER BY x) FROM t",
    "SELECT EXTRACT(YEAR FROM d), CURRENT_DATE, CURRENT_TIMESTAMP, d + INTERVAL '1' DAY FROM t",
    "WITH a AS (SELECT x FROM t) SELECT * FROM a JOIN u ON a.x = u.x WHERE a.x IN (SELECT x FROM u) "
    "AND EXISTS (SELECT 1 FROM u) UNION ALL SELECT x FROM t",
    "SELECT GREATEST(a, b), LEAST(a, b), x BETWEEN 1 AND 2, s LIKE 'a%', STDDEV(x), VARIANCE(x) FROM t",
]
BY_DIALECT = {
    "duckdb": ["SELECT date_trunc('month', d), strftime(d, '%Y'), date_diff('day', a, b), list(x), string_agg(s, ','), "
               "median(x), quantile_cont(x, 0.5), regexp_matches(s, 'a'), epoch(d), year(d), dayofweek(d) FROM t",
               "SELECT count(*) FILTER (WHERE x > 1), arg_max(a, b), any_value(s), split_part(s, '-', 1) FROM t",
               "SELECT * FROM range(10)", "SELECT * FROM unnest([1, 2])", "SELECT unnest(range(3))"],
    "postgres": ["SELECT date_trunc('month', d), to_char(d, 'YYYY'), date_part('year', d), age(a, b), "
                 "string_agg(s, ','), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), s ILIKE 'a%', d::date FROM t",
                 "SELECT * FROM generate_series(1, 3)", "SELECT array_agg(x), bool_and(b), split_part(s, '-', 1) FROM t"],
    "mysql": ["SELECT DATE_FORMAT(d, '%Y'), GROUP_CONCAT(x), IFNULL(a, b), TIMESTAMPDIFF(DAY, a, b), DATEDIFF(a, b), "
              "YEAR(d), MONTH(d), DATE_ADD(d, INTERVAL 1 DAY), STR_TO_DATE(s, '%Y'), CONCAT_WS('-', a, b) FROM t"],
    "sqlite": ["SELECT strftime('%Y', d), julianday(d), group_concat(x), printf('%d', 1), date(d, '+1 day'), "
               "instr(s, 'a'), ifnull(a, b), substr(s, 1, 2) FROM t"],
}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_ordinary_analyst_sql_passes(dialect: str) -> None:
    for sql in ANALYST_SQL + BY_DIALECT[dialect]:
        assert refusals(sql, dialect) == [], sql


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_name_the_deny_list_knows_is_refused_as_a_call_and_as_a_table_function(dialect: str) -> None:
    for name in DENIED_FUNCTIONS:
        if "$" in name or (name == "glob" and dialect != "duckdb"):
            continue  # Snowflake's SYSTEM$...; glob(a, b) is the GLOB operator outside DuckDB, harmless
        assert refusals(f"SELECT {name}(1)", dialect), (dialect, name)
        assert refusals(f"SELECT * FROM {name}(1)", dialect), (dialect, name)


@pytest.mark.parametrize(("dialect", "sql", "name"), [
    ("duckdb", "SELECT current_setting('temp_directory')", "current_setting"),
    ("postgres", "SELECT current_setting('data_directory')", "current_setting"),
    ("duckdb", "SELECT json_serialize_plan('SELECT * FROM t')", "json_serialize_plan"),
    ("duckdb", "SELECT * FROM pragma_storage_info('t')", "pragma_storage_info"),
    ("duckdb", "SELECT * FROM histogram(t, s)", "histogram"),
    ("duckdb", "SELECT * FROM duckdb_settings()", "duckdb_settings"),
    ("duckdb", "SELECT getenv('HOME')", "getenv"),
    ("duckdb", "SELECT * FROM query('SELECT 1')", "query"),
    ("postgres", "SELECT pg_advisory_lock(1)", "pg_advisory_lock"),
    ("postgres", "SELECT pg_notify('c', 'x')", "pg_notify"),
    ("postgres", "SELECT pg_reload_conf()", "pg_reload_conf"),
    ("postgres", "SELECT pg_sleep(1)", "pg_sleep"),
    ("postgres", "SELECT * FROM postgres_query('x', 'SELECT 1')", "postgres_query"),
    ("postgres", "SELECT inet_server_addr()", "inet_server_addr"),
    ("mysql", "SELECT SLEEP(1)", "sleep"),
    ("mysql", "SELECT GET_LOCK('x', 0)", "get_lock"),
    ("mysql", "SELECT LOAD_FILE('/etc/passwd')", "load_file"),
    ("mysql", "SELECT http_get('http://x')", "http_get"),
    ("sqlite", "SELECT * FROM pragma_database_list()", "pragma_database_list"),
    ("sqlite", "SELECT load_extension('x')", "load_extension"),
])
def test_leaks_and_side_effects_are_refused_naming_the_function(dialect: str, sql: str, name: str) -> None:
    policy = ReadPolicy(dialect, [(("t",), "T")])
    [finding] = [f for f in policy.findings(sqlglot.parse_one(sql, read=dialect))]
    assert finding.code in (FUNCTION_NOT_ALLOWED, TABLE_FUNCTION_REFUSED)
    assert name in finding.message.lower() and "raw_sql" in finding.message


def test_an_unknown_function_says_how_an_admin_allows_it() -> None:
    [finding] = ReadPolicy("duckdb").findings(sqlglot.parse_one("SELECT my_udf(1)", read="duckdb"))
    assert finding.code == "function_not_allowed"
    assert finding.message == ("function my_udf is not allowed in raw SQL on duckdb: raw SQL may call only the functions on "
                               "the allow-list (docs/security.md); an admin can allow it with database.yml "
                               "`raw_sql: {functions: [my_udf]}`")


def test_schema_qualified_calls_are_refused() -> None:
    [finding] = ReadPolicy("postgres").findings(sqlglot.parse_one("SELECT public.lower('x')", read="postgres"))
    assert finding.code == "function_not_allowed" and "public.lower('x')" in finding.message


def with_database_yml(tmp_path: Path, extra: str) -> Path:
    database = textwrap.dedent(MINI["database.yml"]).lstrip("\n") + textwrap.dedent(extra).lstrip("\n")
    return write_layer(tmp_path, {"database.yml": database}) / "mini"


def test_an_admin_extends_the_allow_list_in_database_yml(tmp_path: Path) -> None:
    layer = load_layer(with_database_yml(tmp_path, """
        raw_sql:
          functions: [my_udf, Levenshtein_Ratio]
          table_functions: [my_rows]
    """))
    policy = policy_for(layer.semantic)
    assert refusals("SELECT my_udf(id), levenshtein_ratio('a', 'b') FROM orders", "duckdb", policy) == []
    assert refusals("SELECT * FROM my_rows(3)", "duckdb", policy) == []
    assert refusals("SELECT other_udf(1)", "duckdb", policy) == [("function_not_allowed", "other_udf")]
    assert "my_udf" not in allowed_functions("duckdb")  # per layer, not global


def test_dangerous_or_malformed_names_in_the_extension_are_layer_errors_with_file_and_line(tmp_path: Path) -> None:
    folder = with_database_yml(tmp_path, """
        raw_sql:
          functions: [getenv, "pg_catalog.lower", ok_fn]
          table_fns: [x]
    """)
    with pytest.raises(LayerValidationError) as info:
        load_layer(folder)
    errors = [e.formatted() for e in info.value.errors]
    assert any("database.yml:" in e and "raw_sql.functions[0]: function getenv cannot be allowed (system access)" in e
               for e in errors), errors
    assert any("raw_sql.functions[1]: 'pg_catalog.lower' is not a function name" in e for e in errors), errors
    assert any("unknown key 'table_fns'" in e and "did you mean 'table_functions'" in e for e in errors), errors


@pytest.mark.parametrize(("dialect", "sql", "name"), [
    ("clickhouse", "SELECT * FROM url('http://10.0.0.1/x.csv', 'CSV')", "url"),
    ("clickhouse", "SELECT * FROM file('/etc/passwd', 'LineAsString')", "file"),
    ("clickhouse", "SELECT * FROM remote('db2', default.t)", "remote"),
    ("spark", "SELECT reflect('java.lang.Runtime', 'getRuntime') FROM t", "reflect"),
    ("databricks", "SELECT java_method('java.lang.System', 'getenv', 'HOME') FROM t", "java_method"),
])
def test_the_distributed_engines_dangerous_functions_are_refused_in_raw_sql(dialect: str, sql: str, name: str) -> None:
    found = refusals(sql, dialect)
    assert found and name in found[0][1].lower(), found


def test_a_layer_cannot_allow_a_distributed_engines_dangerous_function(tmp_path: Path) -> None:
    from engine.dialects.denylist import why_not_allowable

    assert "cannot be allowed (runs JVM code or programs)" in (why_not_allowable("reflect", "spark") or "")
    assert why_not_allowable("reflect", "duckdb") is None  # only Spark knows it
    assert "tomonday" in allowed_functions("clickhouse") and "url" not in allowed_functions("clickhouse", ["url"])
