"""Joins between tables: declared foreign keys first, then candidates from naming conventions,
weighed by how many of the column's values exist in the candidate key (measured on the data).

Every join points from the "many" side to a unique key (many_to_one), or is one_to_one when the
referencing columns are themselves declared unique. A declared foreign key whose target is not
unique in the data is turned around when the other side is unique, and skipped (many-to-many)
when neither is: a join the compiler trusts must never fan out where it says it does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from engine.dialects import dialect as dialect_of

from .catalog import ForeignKey, Table
from .introspect import Source
from .names import ID_SUFFIXES, base_tokens, identifier_word, singular, singular_tokens, tokens
from .shortcuts import drop_shortcuts, extension_root

EMIT_AT = 0.55  # lowest confidence written to joins.yml
GENERIC_KEYS = ({"id"}, {"code"}, {"key"}, {"no"}, {"num"}, {"name"}, {"pk"})


@dataclass
class Link:
    from_table: str
    from_columns: tuple[str, ...]
    to_table: str
    to_columns: tuple[str, ...]
    relationship: str  # many_to_one | one_to_one
    origin: str  # declared | inferred
    confidence: float  # 1.0 for declared foreign keys
    evidence: str
    clean: str = ""  # "trim" or "upper_trim": the referencing values need cleaning to match (' APG' -> 'APG')

    def pairs(self) -> set[tuple[str, str, str, str]]:
        """(table, column, table, column) per column pair, lower-cased, for comparisons."""
        return {(self.from_table.lower(), a.lower(), self.to_table.lower(), b.lower()) for a, b in zip(self.from_columns, self.to_columns)}


@dataclass
class Skipped:
    what: str
    reason: str


def infer_links(source: Source | None, tables: list[Table], *, use_declared: bool = True, sample_rows: int | None = None,
                ) -> tuple[list[Link], list[Skipped]]:
    """All joins of the layer and the foreign keys that could not become one (with why)."""
    by_name = {t.name.lower(): t for t in tables}
    links: list[Link] = []
    skipped: list[Skipped] = []
    covered: set[tuple[str, str]] = set()  # (table, column) already referencing something
    if use_declared:
        for table in tables:
            for fk in table.foreign_keys:
                link = _declared(source, table, fk, by_name, skipped, sample_rows)
                if link is not None and not any(link.pairs() & other.pairs() for other in links):
                    links.append(link)
                for c in fk.columns:
                    covered.add((table.name.lower(), c.lower()))
    for link in composite_candidates(source, tables, sample_rows):
        if not any(link.pairs() & other.pairs() for other in links) and not any(
                (link.from_table.lower(), c.lower()) in covered for c in link.from_columns):
            links.append(link)
    taken = {p for link in links for p in link.pairs()}
    taken |= {(c, d, a, b) for a, b, c, d in taken}
    candidates = []
    for table in tables:
        for col in table.columns:
            if (table.name.lower(), col.name.lower()) in covered or col.kind == "other":
                continue
            best = _best_candidate(source, table, col.name, tables, sample_rows)
            if best is not None:
                candidates.append(best)
    for best in sorted(candidates, key=lambda link: -link.confidence):  # of two directions of one pair, the surer one
        if best.pairs() & taken:
            continue
        links.append(best)
        taken |= best.pairs() | {(c, d, a, b) for a, b, c, d in best.pairs()}
    keys = {t.name.lower(): t.key for t in tables}
    links = [extension_root(link, links, keys) or link for link in links]
    links, shortcuts = drop_shortcuts(links, keys)
    for link, via in shortcuts:
        skipped.append(Skipped(f"{link.from_table}({link.from_columns[0]}) -> {link.to_table}({link.to_columns[0]})",
                               f"inferred, but a shortcut: {link.from_columns[0]} already reaches {link.to_table} through "
                               f"{via.from_table}({', '.join(via.from_columns)}) -> {via.to_table}"))
    return links, skipped


# -- declared foreign keys ------------------------------------------------------------------------


def _declared(source: Source | None, table: Table, fk: ForeignKey, by_name: dict[str, Table], skipped: list[Skipped],
              sample_rows: int | None) -> Link | None:
    shown = f"{table.name}({', '.join(fk.columns)}) -> {fk.ref_table}({', '.join(fk.ref_columns)})"
    parent = by_name.get(fk.ref_table.lower())
    if parent is None:
        skipped.append(Skipped(shown, f"table '{fk.ref_table}' does not exist"))
        return None
    from_cols = _resolve(table, fk.columns)
    to_cols = _resolve(parent, fk.ref_columns or parent.primary_key or parent.key)
    if from_cols is None or to_cols is None or len(from_cols) != len(to_cols):
        skipped.append(Skipped(shown, "its columns do not all exist"))
        return None
    to_unique = parent.is_unique(to_cols)
    if parent is table:  # joined to a copy of the table in the role the column names (an employee's manager)
        if to_unique is False:
            skipped.append(Skipped(shown, f"{', '.join(to_cols)} is not unique in {table.name}"))
            return None
        return Link(table.name, from_cols, parent.name, to_cols, "many_to_one", "declared", 1.0,
                    f"declared foreign key {shown}, to the table itself: joined to a copy of it")
    if to_unique is False:
        if table.is_unique(from_cols):
            return Link(parent.name, to_cols, table.name, from_cols, "many_to_one", "declared", 1.0,
                        f"declared foreign key {shown}, turned around: {parent.name} has duplicate values of it")
        skipped.append(Skipped(shown, f"many-to-many: neither {table.name} nor {parent.name} has unique values of it"))
        return None
    relationship = "one_to_one" if _declared_unique(table, from_cols) else "many_to_one"
    clean, note = "", ""
    col, pcol = table.require_column(from_cols[0]), parent.require_column(to_cols[0])
    if source is not None and len(from_cols) == 1 and col.kind == "string" and col.non_null and parent.row_count:
        _, evidence, clean = _value_evidence(source, table, from_cols, parent, to_cols, sample_rows,
                                             cast=col.kind != pcol.kind and not dialect_of(source.dialect).affinity_typing)
        note = f"; its values match only when cleaned: {evidence}" if clean else ""
    return Link(table.name, from_cols, parent.name, to_cols, relationship, "declared", 1.0, f"declared foreign key {shown}{note}", clean)


def _resolve(table: Table, names: tuple[str, ...]) -> tuple[str, ...] | None:
    cols = [c for n in names if (c := table.column(n)) is not None]
    return tuple(c.name for c in cols) if names and len(cols) == len(names) else None


def _declared_unique(table: Table, cols: tuple[str, ...]) -> bool:
    """One_to_one needs a declaration: uniqueness seen in today's data may be chance."""
    lowered = {c.lower() for c in cols}
    keys = [table.primary_key, *table.unique] + ([table.key] if table.key_origin in ("declared", "unique_constraint") else [])
    return any(k and {c.lower() for c in k} <= lowered for k in keys)


# -- naming conventions and value overlap ----------------------------------------------------------


def flat(words: list[str]) -> str:
    """Words compared without case, separators or plural: `StuID`, `stu_id` and `stuid` are equal."""
    words = [w for w in words if w]
    return "".join(words[:-1] + [singular(words[-1])]) if words else ""


def _strip_digits(words: list[str]) -> list[str]:
    """`club_id_2` -> [club, id]: a numbered role of the same reference."""
    while len(words) > 1 and words[-1].isdigit():
        words = words[:-1]
    return words


def _ends(a: list[str], b: list[str]) -> bool:
    return len(a) > len(b) > 0 and flat(a[-len(b):]) == flat(b)


def _starts(a: list[str], b: list[str]) -> bool:
    return len(a) > len(b) > 0 and flat(a[:len(b)]) == flat(b)


def id_like(name: str) -> bool:
    words = _strip_digits(tokens(name))
    return bool(words) and (identifier_word(words[-1]) or words[-1] == "number")


def name_score(table: Table, column: str, parent: Table, key: str) -> tuple[float, str]:
    """How strongly the names say `table.column` references `parent.key`, with the reason.

    Strongest: the column has the key's own name (`Stadium_ID` -> stadium.Stadium_ID), or names
    the table and ends like an identifier (`customer_id` -> customers.id); weaker: a role before
    the table's or the key's name (`home_team_id`, `source_u_id`), the table's name alone
    (`patient` -> patient.SSN). Weak candidates need the values to agree.
    """
    ct = _strip_digits(tokens(column))
    cb = _strip_digits(base_tokens(column))
    pt, kt, own = singular_tokens(parent.name), tokens(key), singular_tokens(table.name)
    numbered = len(ct) < len(tokens(column))
    has_suffix = len(ct) > len(cb)
    generic = set(kt) in GENERIC_KEYS or not kt
    is_parent_key = parent.key == (key,) or parent.primary_key == (key,)
    names_parent = flat(cb) == flat(pt) or _ends(cb, pt) or _starts(ct, pt)
    if table.key == (column,) and table.key_origin in ("declared", "unique_constraint"):
        # a table's declared key references another table only for 1:1 extensions named after it
        if not (names_parent and flat(cb) != flat(own)):
            return 0.0, ""
    prefix_bonus = 0.05 if _starts(kt, pt) or flat(base_tokens(key)) == flat(pt) else 0.0
    if flat(ct) == flat(kt) and not generic and (is_parent_key or id_like(key)):
        score = (0.7 if numbered else 0.75) + prefix_bonus + (0.02 if is_parent_key else 0.0)
        return score, f"same name as {parent.name}'s {'key ' if is_parent_key else ''}{key}"
    if flat(ct) == flat(kt) and (flat(ct) == flat(pt) or _starts(pt, ct)):
        return 0.7, f"{column} names {parent.name} and its unique column {key}"
    suffix_matches = not generic or not has_suffix or ct[-1] in kt or kt == ["id"]
    if not is_parent_key and not id_like(key):
        return 0.0, ""
    # another unique identifier of the table (customers.customer_code for orders.customer_ref) ranks below its key
    penalty = 0.0 if is_parent_key else 0.05
    what = "key" if is_parent_key else "unique column"
    if flat(cb) == flat(pt) and has_suffix and suffix_matches:
        return 0.8 - penalty, f"{column} names {parent.name} and its {what} {key}"
    if (_ends(cb, pt) or _ends(pt, cb)) and has_suffix and suffix_matches:
        return 0.6 - penalty, f"{column} ends with the name of {parent.name}"
    if _ends(ct, kt) and not generic:
        return 0.6 - penalty, f"{column} ends with the name of {parent.name}'s {what} {key}"
    if flat(cb) == flat(pt):
        return 0.5 - penalty, f"{column} is named after {parent.name}"
    if _ends(cb, pt) or _ends(pt, cb):
        return 0.45 - penalty, f"{column} ends with the name of {parent.name}"
    if _starts(ct, pt) and has_suffix:
        return 0.45 - penalty, f"{column} starts with the name of {parent.name}"
    return 0.0, ""


def _targets(parent: Table, column: str) -> list[str]:
    """The columns of a table another table could reference: its key, unique columns, and an
    identifier-like column of the same name that is unique (or whose table is empty)."""
    out = [parent.key[0]] if len(parent.key) == 1 else []
    if len(parent.primary_key) == 1 and parent.primary_key[0] not in out:
        out.append(parent.primary_key[0])
    out += [u[0] for u in parent.unique if len(u) == 1 and u[0] not in out]
    for other in parent.columns:  # other identifiers: unique, non-NULL, named like a code or an id
        if other.name not in out and id_like(other.name) and other.non_null and other.non_null == parent.row_count \
                and other.distinct == other.non_null and not parent.sampled:
            out.append(other.name)
    same = parent.column(column)
    if same is not None and same.name not in out:
        names_table = flat(tokens(same.name)) == flat(singular_tokens(parent.name)) or _starts(singular_tokens(parent.name), tokens(same.name))
        if id_like(same.name) and parent.is_unique((same.name,)) and (same.non_null or not parent.row_count):
            out.append(same.name)  # on an empty table only a declared key or unique column: else both sides may repeat
        elif names_table and parent.is_unique((same.name,)) and same.non_null == parent.row_count:
            out.append(same.name)  # wine.Grape -> grapes.Grape
    return out


def _best_candidate(source: Source | None, table: Table, column: str, tables: list[Table], sample_rows: int | None) -> Link | None:
    col = table.require_column(column)
    if table.row_count and not col.non_null:
        return None  # an empty column references nothing
    best: Link | None = None
    for parent in tables:
        if parent is table or parent.is_view or not parent.row_count and not parent.key:
            continue  # a view repeats its tables' columns: it is never inferred to be referenced
        for key in _targets(parent, column):
            score, why = name_score(table, column, parent, key)
            if (not score and table.key == (column,) and parent.key == (key,) and flat(tokens(column)) == flat(tokens(key))
                    and set(tokens(key)) not in GENERIC_KEYS and (table.row_count or 0) < (parent.row_count or 0)):
                # two tables keyed by the same column: the one with fewer rows extends the other
                score, why = 0.6, f"both tables are keyed by {key}; {parent.name} has more rows"
            if score <= 0:
                continue
            pcol = parent.column(key)
            if pcol is None or pcol.kind == "other":
                continue
            compatible = col.kind == pcol.kind or {col.kind, pcol.kind} <= {"string", "number"} and source is not None and dialect_of(source.dialect).affinity_typing
            if not compatible:
                score -= 0.2
            cast = col.kind != pcol.kind and source is not None and not dialect_of(source.dialect).affinity_typing  # SQLite compares by affinity
            bonus, evidence, clean = _value_evidence(source, table, (column,), parent, (key,), sample_rows, cast=cast)
            confidence = round(max(0.0, min(0.99, score + bonus)), 2)
            if confidence < EMIT_AT or (best is not None and confidence <= best.confidence):
                continue
            relationship = "one_to_one" if _declared_unique(table, (column,)) else "many_to_one"
            best = Link(table.name, (column,), parent.name, (key,), relationship, "inferred", confidence, f"{why}; {evidence}", clean)
    return best


def composite_candidates(source: Source | None, tables: list[Table], sample_rows: int | None) -> list[Link]:
    """Joins on a composite key: a table holding, by name, every column of another table's key."""
    out = []
    for parent in tables:
        if len(parent.key) < 2 or parent.key_origin == "all_columns" or parent.is_view:
            continue
        for table in tables:
            if table is parent:
                continue
            cols = [c for k in parent.key if (c := table.column(k)) is not None]
            if len(cols) != len(parent.key):
                continue
            if {c.name.lower() for c in cols} == {k.lower() for k in table.key} and not (table.row_count or 0) < (parent.row_count or 0):
                continue  # the same key: only the table with fewer rows can extend the other
            if not any(id_like(c.name) for c in cols):
                continue
            names = tuple(c.name for c in cols)
            bonus, evidence, _ = _value_evidence(source, table, names, parent, parent.key, sample_rows, cast=False)
            confidence = round(max(0.0, min(0.99, 0.7 + bonus)), 2)
            if confidence >= EMIT_AT:
                relationship = "one_to_one" if _declared_unique(table, names) else "many_to_one"
                out.append(Link(table.name, names, parent.name, parent.key, relationship, "inferred", confidence,
                                f"holds every column of {parent.name}'s key; {evidence}"))
    return out


def _value_evidence(source: Source | None, table: Table, columns: tuple[str, ...], parent: Table, keys: tuple[str, ...],
                    sample_rows: int | None, *, cast: bool) -> tuple[float, str, str]:
    """A confidence adjustment from the share of the columns' distinct values found in the key,
    the evidence as text, and the cleaning the values need (when raw values mostly miss but
    trimmed, or trimmed and upper-cased, values match)."""
    col = table.require_column(columns[0])
    if source is not None and table.row_count and not parent.row_count:
        return -0.1, f"{parent.name} is empty: no value can be checked", ""  # the evidence should exist and does not
    if source is None or not table.row_count or not parent.row_count:
        return 0.0, "no data to compare", ""
    distinct, found = overlap(source, table, columns, parent, keys, sample_rows, cast=cast)
    if not distinct:
        return 0.0, "no data to compare", ""
    clean = ""
    if found / distinct < 0.9 and len(columns) == 1 and col.kind == "string":
        for how in ("trim", "upper_trim"):
            d2, f2 = overlap(source, table, columns, parent, keys, sample_rows, cast=cast, clean=how)
            if d2 and f2 / d2 >= 0.9:
                distinct, found, clean = d2, f2, how
                break
    share = found / distinct
    shown = keys[0] if len(keys) == 1 else f"({', '.join(keys)})"
    cleaned = {"trim": " after trimming spaces", "upper_trim": " after trimming spaces and upper-casing"}.get(clean, "")
    text = f"{found} of {distinct} distinct values found in {parent.name}.{shown}{cleaned} ({share:.0%})"
    if share >= 0.99:
        bonus = 0.2
    elif share >= 0.9:
        bonus = 0.1
    elif share >= 0.7:
        bonus = -0.15
    elif share >= 0.5:
        bonus = -0.3
    else:
        bonus = -0.5
    if bonus > 0 and distinct <= 2 and col.kind == "number" and len(columns) == 1:
        bonus = 0.05  # two small integers are found in almost any id column
    return bonus, text, clean


def clean_expression(node: exp.Expression, clean: str) -> exp.Expression:
    if clean == "trim":
        return exp.Trim(this=node)
    if clean == "upper_trim":
        return exp.Upper(this=exp.Trim(this=node))
    return node


def overlap(source: Source, table: Table, columns: tuple[str, ...], parent: Table, keys: tuple[str, ...], sample_rows: int | None,
            *, cast: bool, clean: str = "") -> tuple[int, int]:
    """(distinct non-NULL values of table.columns, how many of them exist in parent.keys)."""
    def value(name: str, side: str = "") -> exp.Expression:
        node: exp.Expression = exp.column(name, quoted=True)
        node = exp.cast(node, exp.DataType.build("VARCHAR")) if cast else node
        return clean_expression(node, clean) if side == "child" else node

    child = exp.select(*[value(c, "child").as_(f"v{i}") for i, c in enumerate(columns)]).distinct().from_(source.table_ref(table))
    for c in columns:
        child = child.where(exp.Not(this=exp.Is(this=exp.column(c, quoted=True), expression=exp.Null())))
    if sample_rows:
        child = child.limit(sample_rows)
    targets = exp.select(*[value(k).as_(f"k{i}") for i, k in enumerate(keys)]).distinct().from_(source.table_ref(parent))
    on = exp.and_(*[exp.EQ(this=exp.column(f"v{i}", table="c"), expression=exp.column(f"k{i}", table="p")) for i in range(len(keys))])
    query = (exp.select(exp.Count(this=exp.Star()), exp.Count(this=exp.column("k0", table="p")))
             .from_(child.subquery("c")).join(targets.subquery("p"), on=on, join_type="left"))
    row = source.query(query)[0]
    return int(row[0] or 0), int(row[1] or 0)


__all__ = ["EMIT_AT", "ID_SUFFIXES", "Link", "Skipped", "infer_links", "name_score", "overlap"]
