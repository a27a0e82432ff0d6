"""Join inference rules that read the graph of candidate joins, each on a small SQLite database it
changes: shortcuts past a composite key, references to a table that only extends another, and no
target on an empty table whose column is not declared unique. Names and values only (no declared
foreign keys), as `smq init --ignore-declared-fks` infers them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine import load_layer
from smq_authoring import init_layer
from smq_authoring.infer import Link
from smq_authoring.shortcuts import drop_shortcuts


def build(path: Path, script: str, rows: dict[str, list[tuple]]) -> str:
    conn = sqlite3.connect(path)
    conn.executescript(script)
    for table, values in rows.items():
        conn.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


def joins(url: str, out: Path) -> set[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    result = init_layer(url, "t", out, use_declared_fks=False)
    load_layer(out)
    return {(link.from_table, link.from_columns, link.to_table, link.to_columns) for link in result.links}


SCHOOL = """
CREATE TABLE course (course_id TEXT PRIMARY KEY, title TEXT);
CREATE TABLE section (course_id TEXT, sec_id INTEGER, room TEXT, PRIMARY KEY (course_id, sec_id));
CREATE TABLE takes (student_no INTEGER, course_id TEXT, sec_id INTEGER, grade TEXT, PRIMARY KEY (student_no, course_id, sec_id));
"""


def school_rows() -> dict[str, list[tuple]]:
    courses = [f"C{i}" for i in range(1, 9)]
    return {"course": [(c, f"Course {c}") for c in courses],
            "section": [(c, s, f"R{s}") for c in courses for s in (1, 2)],
            "takes": [(n, courses[n % 8], 1 + n % 2, "A") for n in range(1, 40)]}


def test_a_shortcut_past_a_composite_key_is_dropped(tmp_path: Path) -> None:
    """takes.course_id reaches course through takes -> section -> course: the direct join is a
    second path between the same models and is dropped (listed, with why, as not joined)."""
    url = build(tmp_path / "school.sqlite", SCHOOL, school_rows())
    found = joins(url, tmp_path / "school")
    assert ("takes", ("course_id", "sec_id"), "section", ("course_id", "sec_id")) in found
    assert ("section", ("course_id",), "course", ("course_id",)) in found
    assert not any(f == "takes" and c == ("course_id",) for f, c, _, _ in found)
    text = (tmp_path / "school" / "joins.yml").read_text()
    assert "takes(course_id) -> course(course_id): inferred, but a shortcut" in text


def test_a_composite_without_value_evidence_does_not_hide_a_join(tmp_path: Path) -> None:
    """With section empty the composite join has no values to confirm it: the direct join stays."""
    rows = school_rows()
    url = build(tmp_path / "school.sqlite", SCHOOL, {"course": rows["course"], "takes": rows["takes"]})
    found = joins(url, tmp_path / "school")
    assert ("takes", ("course_id",), "course", ("course_id",)) in found


def test_declared_joins_are_never_dropped_as_shortcuts() -> None:
    composite = Link("takes", ("course_id", "sec_id"), "section", ("course_id", "sec_id"), "many_to_one", "declared", 1.0, "")
    part = Link("section", ("course_id",), "course", ("course_id",), "many_to_one", "declared", 1.0, "")
    direct = Link("takes", ("course_id",), "course", ("course_id",), "many_to_one", "declared", 1.0, "")
    kept, dropped = drop_shortcuts([composite, part, direct], {"takes": ("student_no", "course_id", "sec_id")})
    assert direct in kept and not dropped
    inferred = Link("takes", ("course_id",), "course", ("course_id",), "many_to_one", "inferred", 0.99, "")
    kept, dropped = drop_shortcuts([composite, part, inferred], {"takes": ("student_no", "course_id", "sec_id")})
    assert inferred not in kept and dropped == [(inferred, composite)]


def test_a_composite_holding_the_tables_own_key_is_not_a_path(tmp_path: Path) -> None:
    """department(emp_num, dept_code) matches professor's key, but dept_code is department's own
    key: that composite is a role of the whole row, so department.emp_num -> employee stays."""
    script = """
    CREATE TABLE employee (emp_num INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE professor (emp_num INTEGER, dept_code TEXT, office TEXT, PRIMARY KEY (emp_num, dept_code));
    CREATE TABLE department (dept_code TEXT PRIMARY KEY, emp_num INTEGER, dept_name TEXT);
    """
    depts = [f"D{i}" for i in range(6)]
    url = build(tmp_path / "college.sqlite", script, {
        "employee": [(n, f"E{n}") for n in range(1, 21)],
        "professor": [(n, depts[n % 6], f"O{n}") for n in range(1, 21)],
        "department": [(d, 6 + i, f"Dept {d}") for i, d in enumerate(depts)]})  # chaired by one of its professors
    found = joins(url, tmp_path / "college")
    assert ("department", ("emp_num",), "employee", ("emp_num",)) in found


def test_a_reference_to_an_extension_table_points_at_the_table_it_extends(tmp_path: Path) -> None:
    """campus_fees is keyed by campus, which itself references campuses.id: a sibling's campus
    refers to the campus, so degrees.campus is joined to campuses, not to campus_fees."""
    script = """
    CREATE TABLE campuses (id INTEGER PRIMARY KEY, location TEXT);
    CREATE TABLE campus_fees (campus INTEGER PRIMARY KEY, fee REAL);
    CREATE TABLE degrees (year INTEGER, campus INTEGER, degrees INTEGER, PRIMARY KEY (year, campus));
    """
    url = build(tmp_path / "csu.sqlite", script, {
        "campuses": [(i, f"City {i}") for i in range(1, 13)],
        "campus_fees": [(i, 100.0 * i) for i in range(1, 13)],
        "degrees": [(y, c, y - 1990 + c) for y in (2000, 2001) for c in range(1, 13)]})
    found = joins(url, tmp_path / "csu")
    assert ("campus_fees", ("campus",), "campuses", ("id",)) in found
    assert ("degrees", ("campus",), "campuses", ("id",)) in found
    assert not any(t == "campus_fees" for _, _, t, _ in found)


def test_an_empty_table_is_a_target_only_through_a_declared_unique_column(tmp_path: Path) -> None:
    """With no rows, cast.msid may repeat (many casts per movie): nothing is inferred to reference
    it; copyright.msid is declared unique, so tags.msid may reference it."""
    script = """
    CREATE TABLE copyright (id INTEGER PRIMARY KEY, msid INTEGER UNIQUE, cid INTEGER);
    CREATE TABLE "cast" (id INTEGER PRIMARY KEY, msid INTEGER, aid INTEGER, role TEXT);
    CREATE TABLE tags (id INTEGER PRIMARY KEY, msid INTEGER, kid INTEGER);
    """
    conn = sqlite3.connect(tmp_path / "imdb.sqlite")
    conn.executescript(script)
    conn.close()
    found = joins(f"sqlite:///{tmp_path / 'imdb.sqlite'}", tmp_path / "imdb")
    assert not any(t == "cast" for _, _, t, _ in found)
    assert ("tags", ("msid",), "copyright", ("msid",)) in found
