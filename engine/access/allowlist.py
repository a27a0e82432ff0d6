"""Which functions and table functions raw SQL may call, per dialect: deny by default.

A SELECT can read files, reach the network, sleep, take locks or reveal the server's settings and
paths through functions (`pg_read_file`, `getenv`, `current_setting`, `json_serialize_plan`,
`FROM pragma_database_list`, `histogram(customers, customer_name)` ...). A deny list always lags
the engines, so raw SQL (REST execute, readQuery, MCP, the agent's final SQL) may call only the
functions named here: the ones the compiler emits plus ordinary analyst SQL (aggregates, window
functions, CASE/CAST/COALESCE, date, string and math functions). The next unknown function is
refused with a message that names it and says how an admin allows it: `raw_sql.functions` (and
`raw_sql.table_functions`) in the layer's database.yml. Names the deny list knows to be dangerous
(`engine.dialects.denylist`) can never be allowed.

A call is matched by the names sqlglot knows it by: the written name for a function sqlglot does
not model (`exp.Anonymous`), else every name of its expression class (`exp.Substring` is SUBSTRING
and SUBSTR), so sqlglot's own spellings (`ts_or_ds_add`, `str_position`) are listed too: the SQL that
runs is regenerated from the tree, and sqlglot writes those nodes as the dialect's function.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlglot import exp

from ..dialects import dialect as dialect_of, find as find_engine
from ..dialects.base import Dialect
from ..dialects.denylist import denied_function_reason


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- every dialect --------------------------------------------------------------------------------------
SYNTAX = _names("""
    case cast try_cast safe_cast convert extract if iif coalesce nullif ifnull nvl nvl2 greatest least
    interval collate distinct between in is not and or current_date current_time current_timestamp
    localtime localtimestamp now today bracket struct_extract array_contains in_unnest exists grouping grouping_id
    xor decode decode_case encode struct normalize
""")
AGGREGATES = _names("""
    count count_if countif sum avg mean min max stddev stddev_pop stddev_samp std variance var_pop var_samp
    variance_pop variance_samp median mode percentile_cont percentile_disc quantile quantile_cont quantile_disc
    approx_distinct approx_count_distinct approx_quantile string_agg group_concat listagg array_agg list
    bool_and bool_or every logical_and logical_or any_value arbitrary first last corr covar_pop covar_samp
    regr_slope regr_intercept regr_count regr_r2 regr_avgx regr_avgy regr_sxx regr_syy regr_sxy
    bit_and bit_or bit_xor arg_max arg_min argmax argmin max_by min_by product skewness kurtosis entropy
    sumifs avgif sumif group_concat_distinct array_unique_agg array_concat_agg
""")
WINDOWS = _names("""
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
""")
STRINGS = _names("""
    lower upper lcase ucase trim ltrim rtrim btrim substring substr length len char_length character_length
    octet_length bit_length concat concat_ws replace reverse left right lpad rpad repeat position strpos
    str_position instr locate split_part starts_with startswith ends_with endswith contains initcap ascii chr
    char unicode format printf regexp_replace regexp_extract regexp_matches regexp_like regexp_substr
    regexp_count regexp_instr regexp_split_to_array string_split string_split_regex split translate
    md5 sha1 sha2 sha256 hash to_hex hex unhex soundex difference levenshtein editdist3 jaro_winkler_similarity
    damerau_levenshtein jaccard array_to_string array_join string_to_array lower_case upper_case
    quote_literal quote_ident to_base64 from_base64 base64 strip_accents nfc_normalize like ilike glob_match
    space mid insert field find_in_set elt make_set lcase ucase prefix suffix overlay
""")
MATHS = _names("""
    abs round floor ceil ceiling sqrt cbrt power pow exp ln log log10 log2 mod sign trunc truncate pi
    sin cos tan cot asin acos atan atan2 degrees radians random rand div safe_divide isnan isinf isfinite
    bit_count gcd lcm factorial even to_number width_bucket acosh asinh atanh cosh sinh tanh signum rint is_nan is_inf
    stdev approx_quantiles approx_top_k
""")
DATES = _names("""
    date time datetime timestamp timestamptz date_trunc datetrunc timestamp_trunc datetime_trunc time_trunc
    date_part datepart date_add date_sub date_diff datediff dateadd timestampadd timestampdiff
    timestamp_add timestamp_sub timestamp_diff datetime_add datetime_sub datetime_diff time_add time_sub
    time_diff age make_date make_time make_timestamp make_interval date_from_parts timestamp_from_parts
    to_date to_char to_timestamp strftime strptime julianday unixepoch epoch epoch_ms epoch_us epoch_ns
    year month day dayofweek dayofyear dayofmonth weekday weekofyear week yearweek quarter hour minute second
    millisecond microsecond isodow isoyear last_day monthname dayname date_format time_format str_to_date
    str_to_time time_to_str time_str_to_time time_str_to_date time_str_to_unix time_to_unix unix_to_time
    unix_to_str unix_to_time_str ts_or_ds_add ts_or_ds_diff ts_or_ds_to_date ts_or_ds_to_date_str
    ts_or_ds_to_time ts_or_ds_to_timestamp ds_to_date date_to_di di_to_date date_str_to_date date_to_date_str
    from_unixtime unix_timestamp to_days from_days period_add period_diff makedate maketime sec_to_time
    time_to_sec add_months months_between next_day date_bin generate_date_array generate_timestamp_array
    current_datetime utc_date utc_timestamp sysdate getdate convert_timezone
    timezone at_time_zone to_timestamp_tz to_timestamp_ntz justify_days justify_hours isfinite
    datetime_from_parts time_from_parts last_day_of_month first_day strftime_ms weekofmonth day_of_month day_of_week
    day_of_year week_of_year dayofweek_iso year_of_week date_from_unix_date unix_date unix_seconds unix_millis
    unix_micros parse_datetime parse_time time_slice week_start previous_day from_iso8601_date
""")
JSON_AND_LISTS = _names("""
    json_extract json_extract_scalar json_extract_path json_extract_path_text json_value json_query
    json_object json_array json_array_length json_type json_valid json_keys json_contains json_unquote
    json_build_object json_build_array jsonb_extract_path jsonb_extract_path_text to_json to_jsonb
    json_format parse_json jsonb_object_agg json_object_agg json_group_array json_group_object json_arrayagg
    json_objectagg json_quote json_length json_array_contains json_exists jsonb_contains jsonb_exists
    array array_length array_size cardinality array_slice array_position array_append array_prepend
    array_cat array_concat array_distinct array_sort array_reverse array_to_json list_value list_extract
    list_element list_contains list_has list_sort list_distinct list_concat list_slice list_aggregate
    list_transform list_filter struct_pack row map map_from_entries element_at array_any array_all
    array_filter array_transform unnest explode posexplode generate_series range flatten lambda
    string_to_array regexp_split_to_table regexp_extract_all regexp_full_match regexp_split regexp_i_like
    substring_index array_has array_has_all array_max array_min array_sum array_intersect array_except array_remove
    array_first array_last array_compact sort_array j_s_o_n_object j_s_o_n_array j_s_o_n_array_agg j_s_o_n_object_agg
    j_s_o_n_b_object_agg json_parse json_extract_array jsonb_extract jsonb_extract_scalar lower_hex sha to_boolean
""")
TYPES = _names("""
    typeof pg_typeof try try_to_number try_to_date try_to_timestamp to_varchar to_decimal to_double
    decimal numeric integer bigint float double varchar text boolean bool int int64 float64 string
""")
COMMON = SYNTAX | AGGREGATES | WINDOWS | STRINGS | MATHS | DATES | JSON_AND_LISTS | TYPES

# Table functions (FROM f(...)): only the ones that make rows out of their arguments. What one engine adds to
# either list, and what it refuses whatever a layer allows, is that engine's (engine/dialects/<engine>.py).
TABLE_FUNCTIONS_COMMON = _names("unnest generate_series exploding_generate_series")


def _engine(dialect: str) -> Dialect | None:
    return dialect_of(dialect) if find_engine(dialect) is not None else None


def _denied(dialect: str | None) -> Mapping[str, str]:
    engine = _engine(dialect) if dialect else None
    return engine.denied_functions if engine is not None else {}


def function_names(node: exp.Func) -> list[str]:
    """The lower-case names a call is known by: as written when sqlglot does not model it, else its class's."""
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc, exp.ParameterizedAgg)):  # f(x), ClickHouse's f(p)(x)
        return [node.name.lower()]
    return [name.lower() for name in type(node).sql_names()]


def allowed_functions(dialect: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The dialect's allow-list (plus a layer's `extra`), never a name the dialect's engine knows to be dangerous."""
    engine = _engine(dialect)
    allowed = COMMON | (engine.raw_sql_functions if engine is not None else frozenset())
    return (allowed | {name.lower() for name in extra}) - _denied(dialect).keys()


def allowed_table_functions(dialect: str, extra: Iterable[str] = ()) -> frozenset[str]:
    engine = _engine(dialect)
    allowed = TABLE_FUNCTIONS_COMMON | (engine.raw_sql_table_functions if engine is not None else frozenset())
    return (allowed | {name.lower() for name in extra}) - _denied(dialect).keys()


def is_allowed(names: Iterable[str], allowed: frozenset[str]) -> bool:
    """Allowed when one of the call's names is listed and none is known to be dangerous."""
    names = list(names)
    return any(n in allowed for n in names) and not any(denied_function_reason(n) for n in names)
