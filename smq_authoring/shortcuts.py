"""Rules on the graph of inferred joins: shortcuts past a composite key (a transitive reduction),
and references to a table that only extends another (moved to the table it extends).

A table keyed by a composite (`takes(course_id, sec_id, semester, year) -> section`) also carries
each part of the key by name, so inference finds a second, direct join from a part to the table the
part itself references (`takes.course_id -> course`). That join agrees with the data, but it skips
the composite: the relationship is `takes -> section -> course`, and the direct edge makes two paths
between the same models. When a path exists that carries the same column to the same key through
the composite, the direct inferred edge is redundant and is dropped (declared keys are always kept).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .infer import Link


MAX_DEPTH = 4  # path length beyond the composite edge: schemas nest keys a few levels deep at most
CONFIRMED = 0.8  # a composite join this sure had >= 90% of its value tuples found: the path is real


def _step(links: list[Link], table: str, column: str) -> list[tuple[str, str, Link]]:
    """Where `table.column` leads along any join leaving `table`: (to table, to column, the join)."""
    out = []
    for link in links:
        if link.from_table.lower() != table:
            continue
        for a, b in zip(link.from_columns, link.to_columns):
            if a.lower() == column:
                out.append((link.to_table.lower(), b.lower(), link))
    return out


def _reaches(links: list[Link], table: str, column: str, target: tuple[str, str], depth: int, avoid: Link) -> bool:
    if (table, column) == target:
        return True
    if depth == 0:
        return False
    return any(nxt is not avoid and _reaches(links, t, c, target, depth - 1, avoid) for t, c, nxt in _step(links, table, column))


def _composite_reference(via: Link, own_key: tuple[str, ...]) -> bool:
    """A join on a composite the table holds as parts of a reference: confirmed by the values
    (declared, or inferred with most value tuples found), and not carrying the table's own
    single-column key (then it is a role of the whole row, not the lineage of a key part)."""
    if len(via.from_columns) < 2 or via.origin == "inferred" and via.confidence < CONFIRMED:
        return False
    return not (len(own_key) == 1 and own_key[0].lower() in {c.lower() for c in via.from_columns})


def shortcut_of(link: Link, links: list[Link], own_key: tuple[str, ...] = ()) -> Link | None:
    """The composite join that `link` skips, when `link` is an inferred single-column join whose
    column also reaches the same key through a composite join of the same table; else None.
    `own_key` is the key of `link.from_table`."""
    if link.origin != "inferred" or len(link.from_columns) != 1:
        return None
    table, column = link.from_table.lower(), link.from_columns[0].lower()
    target = (link.to_table.lower(), link.to_columns[0].lower())
    for to_table, to_column, via in _step(links, table, column):
        if via is link or not _composite_reference(via, own_key):
            continue
        if _reaches(links, to_table, to_column, target, MAX_DEPTH, link):
            return via
    return None


def drop_shortcuts(links: list[Link], keys: dict[str, tuple[str, ...]]) -> tuple[list[Link], list[tuple[Link, Link]]]:
    """The links without the shortcuts past a composite key, and each dropped one with the
    composite join it skips. `keys`: each table's key, by lower-cased table name."""
    kept, dropped = [], []
    for link in links:
        via = shortcut_of(link, links, keys.get(link.from_table.lower(), ()))
        if via is None:
            kept.append(link)
        else:
            dropped.append((link, via))
    return kept, dropped




def extension_root(link: Link, links: list[Link], keys: dict[str, tuple[str, ...]]) -> Link | None:
    """Where an inferred join to a table that only extends another should point instead.

    `degrees.Campus -> csu_fees.Campus`, where csu_fees is keyed by Campus and Campus itself
    references `Campuses.Id`: csu_fees is a 1:1 extension of Campuses, and a sibling table's Campus
    refers to the campus, not to its fees. The join is moved to the root of the chain of extensions
    (its values are found there too, since the extension's are); None when `link` is no such join.
    """
    if link.origin != "inferred" or len(link.from_columns) != 1:
        return None
    table, column = link.to_table.lower(), link.to_columns[0].lower()
    seen = {link.from_table.lower(), table}
    root = None
    while tuple(k.lower() for k in keys.get(table, ())) == (column,):
        up = [link for link in links if link.from_table.lower() == table and len(link.from_columns) == 1 and link.from_columns[0].lower() == column
              and tuple(k.lower() for k in keys.get(link.to_table.lower(), ())) == (link.to_columns[0].lower(),)]
        if len(up) != 1 or up[0].to_table.lower() in seen:
            break
        root = up[0]
        table, column = root.to_table.lower(), root.to_columns[0].lower()
        seen.add(table)
    if root is None:
        return None
    return replace(link, to_table=root.to_table, to_columns=root.to_columns, evidence=
                   f"{link.evidence}; {link.to_table}.{link.to_columns[0]} is itself a reference to {root.to_table}.{root.to_columns[0]} "
                   f"(the key of an extension of {root.to_table}): joined to {root.to_table}")


__all__ = ["drop_shortcuts", "extension_root", "shortcut_of"]
