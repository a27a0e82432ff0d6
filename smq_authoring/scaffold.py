"""From a profiled catalog and its joins to a layer document: models, joins, sources, database.yml.

Choices a reviewer would otherwise make by hand, made conservatively:
* every column of a usable kind becomes a dimension (it can be grouped and filtered); keys are
  described as keys, low-cardinality columns list their values, comments become descriptions;
* measures: a row count per model, a sum (or average, for ages, ratings and the like) per numeric
  column that is not an identifier, a count of distinct values per referencing column;
* the primary key is the declared one, else a column (or pair, or all columns) unique in the data;
  a model without one keeps no measures when a join could fan its rows out (the compiler needs a
  key to deduplicate them).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlglot import exp

from engine.dialects import dialect as dialect_of

from .catalog import Catalog, Column, Table
from .infer import Link, Skipped, clean_expression
from .layerdoc import LayerDoc, ModelEntry, join_identity
from .names import (
    base_tokens,
    camel,
    column_sql,
    edge_key,
    element_name,
    identifier_word,
    model_name,
    pascal,
    plural,
    singular_tokens,
    table_sql,
    tokens,
    unique,
)
from .urls import ConnectionSpec

KIND_TO_TYPE = {"string": "string", "number": "number", "boolean": "boolean", "date": "date", "timestamp": "timestamp", "time": "string"}
AVERAGE_WORDS = {"price", "unit", "age", "rating", "score", "rank", "ranking", "percent", "percentage", "pct", "rate", "ratio", "latitude", "longitude",
                 "lat", "lon", "lng", "temperature", "grade", "level", "stars", "height", "weight"}
NOT_SUMMED_WORDS = {"id", "ids", "code", "key", "no", "num", "number", "zip", "zipcode", "postcode", "phone", "fax", "year", "month",
                    "day", "hour", "minute", "version", "ssn", "isbn", "sequence", "seq", "position", "order", "index",
                    "kind", "type", "category", "class", "status", "flag", "gender", "sex", "zone", "floor", "room"}
INTRANSITIVE = {"happened", "occurred", "started", "ended", "began", "arrived", "departed", "expired"}
BOOLEAN_PREFIXES = ("is", "has", "can", "was", "should", "allow", "flag")


def build_layer_doc(catalog: Catalog, links: list[Link], skipped: list[Skipped], *, db_name: str, layer_dir: Path,
                    spec: ConnectionSpec) -> LayerDoc:
    """The layer for `catalog`, as plain data ready to be written (and validated)."""
    dialect = catalog.dialect
    taken: set[str] = set()
    models: dict[str, str] = {}  # table name -> model name
    files: dict[str, str] = {}
    used_files: set[str] = set()
    for table in catalog.tables:
        models[table.name] = unique(model_name(table.name), taken)
        stem = "_".join(tokens(table.name)) or "table"
        files[table.name] = f"models/{unique(stem, used_files, style='snake')}.yml"
    ends: list[tuple[Link, str, str]] = []
    roles: dict[str, tuple[Table, Link]] = {}  # role model name -> (its table, the self-reference)
    for link in links:
        if link.from_table not in models or link.to_table not in models:
            continue
        if link.from_table == link.to_table:
            role = unique(pascal(base_tokens(link.from_columns[0])) + model_name(link.to_table), taken)
            roles[role] = (catalog.require_table(link.to_table), link)
            ends.append((link, models[link.from_table], role))
        else:
            ends.append((link, models[link.from_table], models[link.to_table]))
    joins, notes = plan_joins(catalog, ends)
    one_side = {j["to"] for j in joins if j["relationship"] == "many_to_one"}
    referencing: dict[str, list[Link]] = {}
    for link, _, _ in ends:
        referencing.setdefault(link.from_table, []).append(link)
    entries: dict[str, ModelEntry] = {}
    for table in catalog.tables:
        body = model_body(table, models, referencing.get(table.name, []), dialect, fans_out=models[table.name] in one_side)
        entry = ModelEntry(files[table.name], body, header=model_header(table))
        entries[f"table:{body['table'].lower()}"] = entry
    for role, (table, link) in roles.items():
        base = entries[f"table:{table_text(table, dialect).lower()}"].body
        body = role_body(role, table, link, base, dialect)
        stem = "_".join(tokens(table.name) + base_tokens(link.from_columns[0]))
        entries[f"sql:{role}"] = ModelEntry(f"models/{unique(stem, used_files, style='snake')}.yml", body,
                                            header=[f"A copy of {table.name} for the rows its {link.from_columns[0]} refers to "
                                                    "(a model cannot join itself)."])
    doc = LayerDoc(
        database=database_body(catalog, db_name, layer_dir, spec),
        models=entries,
        joins=joins,
        sources=sources_body(catalog),
        trailer=[f"not joined: {s.what}: {s.reason}" for s in skipped],
    )
    identities = doc.names_to_identity()
    doc.join_notes = {join_identity(j, identities): note for j, note in zip(joins, notes)}
    return doc


# -- database.yml and sources.yml ---------------------------------------------------------------------


def database_body(catalog: Catalog, db_name: str, layer_dir: Path, spec: ConnectionSpec) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": db_name,
        "description": f"Drafted by smq init from the {spec.describe()}. Say here what the data is about, its period and its caveats.",
        "dialect": catalog.dialect,
        "connection": spec.yaml_connection(layer_dir, db_name),
    }
    spine = find_time_spine(catalog)
    if spine is not None:
        body["time_spine"] = {"table": table_text(spine[0], catalog.dialect), "column": spine[1].name}
    return body


def find_time_spine(catalog: Catalog) -> tuple[Table, Column] | None:
    """A table of consecutive days (one row per day, no gaps): what cumulative metrics need. Its key is the day; it
    may hold other date columns (a fiscal quarter's first day, a week's: the custom granularities of a spine)."""
    import datetime as dt

    for table in catalog.tables:
        dates = [c for c in table.columns if c.kind == "date" and table.key == (c.name,)]
        if len(dates) != 1 or not table.row_count or table.row_count < 28:
            continue
        col = dates[0]
        try:
            first, last = (v if isinstance(v, dt.date) else dt.date.fromisoformat(str(v)[:10]) for v in (col.minimum, col.maximum))
        except (TypeError, ValueError):
            continue
        if (last - first).days + 1 == table.row_count == col.distinct and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", col.name):
            return table, col
    return None


def table_text(table: Table, dialect: str) -> str:
    name = table_sql(table.name, dialect)
    return f"{table_sql(table.schema, dialect)}.{name}" if table.schema else name


def sources_body(catalog: Catalog) -> dict[str, Any]:
    out = []
    for table in catalog.tables:
        entry: dict[str, Any] = {"table": table_text(table, catalog.dialect)}
        if table.comment:
            entry["description"] = table.comment
        if table.primary_key:
            entry["primary_key"] = list(table.primary_key)
        fks = [{"column": c, "references": f"{fk.ref_table}.{r}"}
               for fk in table.foreign_keys for c, r in zip(fk.columns, fk.ref_columns or ("",) * len(fk.columns))]
        if fks:
            entry["foreign_keys"] = [{**f, "references": f["references"].rstrip(".")} for f in fks]
        entry["row_count"] = table.row_count
        columns = []
        for col in table.columns:
            item: dict[str, Any] = {"name": col.name}
            if col.type:
                item["type"] = col.type
            if col.comment:
                item["description"] = col.comment
            columns.append(item)
        entry["columns"] = columns
        out.append(entry)
    return {"sources": out}


# -- joins ------------------------------------------------------------------------------------------------


def on_text(columns: tuple[str, ...], dialect: str, clean: str = "") -> str:
    """The join side as text: a column, a cleaned column (TRIM(x)), or a tuple for a composite key."""
    parts = [column_sql(c, dialect) for c in columns]
    if clean and len(parts) == 1:
        node = clean_expression(exp.column(columns[0], quoted=parts[0] != columns[0]), clean)
        return node.sql(dialect=dialect)
    return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"


def role_body(role: str, table: Table, link: Link, base: dict[str, Any], dialect: str) -> dict[str, Any]:
    """A derived model over the same table, for the other end of a self-reference (no measures)."""
    one, _ = _words(table)
    role_words = " ".join(base_tokens(link.from_columns[0]))
    query = exp.select("*").from_(exp.to_table(table_text(table, dialect), dialect=dialect))
    body: dict[str, Any] = {
        "name": role,
        "description": f"The {one} that another {one}'s {role_words} refers to: a copy of {table.name}, joined from {base['name']}.",
        "sql": query.sql(dialect=dialect),
    }
    if "primary_key" in base:
        body["primary_key"] = base["primary_key"]
    body["dimensions"] = [dict(d) for d in base.get("dimensions", [])]
    return body


def plan_joins(catalog: Catalog, ends: list[tuple[Link, str, str]]) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """joins.yml entries and their comments; edge keys stay distinct among the edges touching a model."""
    used: dict[str, set[str]] = {}
    joins, notes = [], []
    for link, src, dst in sorted(ends, key=lambda e: (e[0].from_table.lower(), e[0].from_columns, e[0].to_table.lower())):
        words = base_tokens(link.from_columns[0]) if len(link.from_columns) == 1 else []
        if not words or words in (["id"], ["code"], ["key"]):
            words = singular_tokens(link.to_table)
        key = edge_key(words)
        touching = used.setdefault(src, set()) | used.setdefault(dst, set())
        if key in touching:
            key = edge_key(singular_tokens(link.from_table) + words)
        key = unique(key, touching, style="snake")
        used[src].add(key)
        used[dst].add(key)
        joins.append({
            "from": src, "to": dst, "key": key, "relationship": link.relationship, "type": "left",
            "on": {"left": on_text(link.from_columns, catalog.dialect, link.clean), "right": on_text(link.to_columns, catalog.dialect)},
        })
        if link.origin == "declared":
            notes.append([link.evidence])
        else:
            notes.append([f"inferred, confidence {link.confidence:.2f}: {link.evidence}"])
    return joins, notes


# -- models ---------------------------------------------------------------------------------------------


def model_header(table: Table) -> list[str]:
    kind = "view" if table.is_view else "table"
    lines = [f"Drafted by smq init from the {kind} {table.name} (its row count is in sources.yml)."]
    if table.key_origin == "data":
        lines.append(f"Its primary key ({', '.join(table.key)}) is not declared: it was unique and non-NULL in the data.")
    elif table.key_origin == "all_columns":
        lines.append("No column identifies a row: the primary key is all columns (the table had no duplicate rows).")
    elif not table.key:
        lines.append("No primary key: nothing is declared and no column is unique in the data.")
    return lines


def _words(table: Table) -> tuple[str, str]:
    """`order_items` -> ('order item', 'order items'), for descriptions."""
    one = singular_tokens(table.name) or ["row"]
    return " ".join(one), " ".join(one[:-1] + [plural(one[-1])])


def model_body(table: Table, models: dict[str, str], referencing: list[Link], dialect: str, *, fans_out: bool) -> dict[str, Any]:
    one, many = _words(table)
    kind = "view" if table.is_view else "table"
    body: dict[str, Any] = {
        "name": models[table.name],
        "description": table.comment or f"One row per {one} ({kind} {table.name}).",
        "table": table_text(table, dialect),
    }
    if table.key:
        keys = [column_sql(c, dialect) for c in table.key]
        body["primary_key"] = keys[0] if len(keys) == 1 else keys
    ref_by_column = {link.from_columns[0].lower(): link for link in referencing if len(link.from_columns) == 1}
    key_columns = {c.lower() for c in table.key} | {c.lower() for link in referencing for c in link.from_columns}
    taken: set[str] = set()
    dimensions = []
    for col in table.columns:
        if col.kind == "other":
            continue
        name = unique(element_name(col.name), taken)
        dim: dict[str, Any] = {"name": name, "type": dimension_type(col, dialect),
                               "description": dimension_description(table, col, ref_by_column.get(col.name.lower()), models)}
        expr = column_sql(col.name, dialect)
        if expr != name:
            dim["expr"] = expr
        dimensions.append(dim)
    body["dimensions"] = dimensions
    if fans_out and not table.key:
        body["description"] += (" It has no measures: no column identifies its rows, so rows repeated by a join could not be"
                                " deduplicated (declare a primary key to add some).")
        return body
    body["measures"] = measures(table, key_columns, referencing, models, taken, dialect, one, many)
    return body


def dimension_type(col: Column, dialect: str) -> str:
    """The dimension's kind; 0/1 columns named like a flag are booleans where integers are truthy."""
    words = tokens(col.name)
    if (col.kind == "number" and dialect_of(dialect).integer_booleans and words[:1] and words[0] in BOOLEAN_PREFIXES
            and (col.values and {v for v, _ in col.values} <= {0, 1} or not col.non_null)):
        return "boolean"
    return KIND_TO_TYPE[col.kind]


def dimension_description(table: Table, col: Column, link: Link | None, models: dict[str, str]) -> str:
    one, _ = _words(table)
    words = " ".join(tokens(col.name)) or col.name
    if col.comment:
        text = col.comment.rstrip(".") + "."
    elif table.key == (col.name,):
        text = f"Identifier of the {one} (primary key{'' if table.key_origin == 'declared' else ', unique in the data'})."
    elif link is not None:
        target = " ".join(singular_tokens(link.to_table))
        text = f"The {target} the {one} refers to ({words}; joins {models.get(link.to_table, link.to_table)})."
    elif tokens(col.name)[:1] and tokens(col.name)[0] in BOOLEAN_PREFIXES:
        text = f"Whether the {one} {words}."
    elif col.kind == "boolean":
        text = f"The {words} flag of the {one}."
    else:
        what = {"date": " (a date)", "timestamp": " (a date and time)"}.get(col.kind, "")
        own = singular_tokens(table.name)
        parts = tokens(col.name)
        if parts and own and parts[:len(own)] == own and len(parts) > len(own):
            parts = parts[len(own):]  # countries.CountryName -> "name of the country"
            words = " ".join(parts)
        elif parts and parts == own:
            words = "name" if col.kind == "string" else "value"  # continents.Continent -> "name of the continent"
        if set(parts) & {"date", "time", "timestamp", "datetime"}:
            what = ""
        if len(parts) > 1 and parts[-1] in ("at", "on") and col.kind in ("date", "timestamp"):
            verb = " ".join(parts[:-1])
            was = "" if parts[-2] in INTRANSITIVE else "was "
            text = f"When the {one} {was}{verb}{what}."  # shipped_at -> "When the order was shipped"
        else:
            text = f"{words[:1].upper()}{words[1:]} of the {one}{what}."
    is_key = table.key == (col.name,) or link is not None
    listed = "" if is_key or (col.distinct or 0) >= (col.non_null or 0) else _values_text(col)
    if listed:
        text += f" {listed}"
    if col.note:
        text += f" Note: {col.note}."
    return text


def _values_text(col: Column) -> str:
    if not col.values or len(col.values) > 10:
        return ""
    shown = []
    for value, _ in sorted(col.values, key=lambda v: (str(type(v[0])), v[0])):  # sorted: stable across re-runs
        if isinstance(value, str):
            if len(value) > 40 or "\n" in value:
                return ""
            shown.append("'" + value.replace("'", "''") + "'")
        elif isinstance(value, bool):
            shown.append("true" if value else "false")
        else:
            shown.append(str(value))
    nulls = " or NULL" if col.has_nulls else ""
    return f"Values: {', '.join(shown)}{nulls}."


def measures(table: Table, key_columns: set[str], referencing: list[Link], models: dict[str, str], taken: set[str], dialect: str,
             one: str, many: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    count_name = unique(camel(singular_tokens(table.name) or ["row"]) + "Count", taken)
    out.append({"name": count_name, "agg": "count", "description": f"Number of {many}."})
    for link in referencing:
        if len(link.from_columns) != 1:
            continue
        ref = link.from_columns[0]
        target_many = " ".join(singular_tokens(link.to_table)[:-1] + [plural(singular_tokens(link.to_table)[-1])])
        base = base_tokens(ref)
        name = unique(camel(base) + "Count" if camel(base) + "Count" != count_name else "distinct" + pascal(base) + "Count", taken)
        out.append({"name": name, "agg": "count_distinct", "expr": column_sql(ref, dialect),
                    "description": f"Number of different {target_many} referred to by the {many} counted ({ref})."})
    for col in table.columns:
        words = tokens(col.name)
        if (col.kind != "number" or col.name.lower() in key_columns or not words or set(words) & NOT_SUMMED_WORDS
                or identifier_word(words[-1])):
            continue
        if col.values is not None and len(col.values) <= 2 and {v for v, _ in col.values} <= {0, 1}:
            continue  # a 0/1 flag
        average = bool(set(words) & AVERAGE_WORDS)
        name = unique(("average" if average else "total") + pascal(words), taken)
        text = " ".join(words)
        description = (f"Average {text} of the {many} counted." if average else f"Sum of the {text} of the {many} counted.")
        out.append({"name": name, "agg": "avg" if average else "sum", "expr": column_sql(col.name, dialect), "description": description})
    return out
