"""Fixtures for authoring tests: a small SQLite database with the cases `smq init` must handle,
and a command-line runner with the authoring commands registered."""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from smq_cli.commands import authoring_commands, engine_commands

SHOP_SQL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, customer_name TEXT NOT NULL, country TEXT, signup_date TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL,
                     status TEXT, is_paid INTEGER, order_date TEXT);
-- no foreign keys declared below: joins must come from names and values
CREATE TABLE products (code TEXT PRIMARY KEY, title TEXT, unit_price REAL);
CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER, product_code TEXT, quantity INTEGER);
CREATE TABLE "Order Notes" ("Note Id" INTEGER PRIMARY KEY, "Order Id" INTEGER, "Note Text" TEXT, "order" INTEGER);
-- no primary key, no duplicate rows: the key is all columns
CREATE TABLE price_history (product_code TEXT, valid_from TEXT, price REAL);
-- no primary key and duplicate rows: no key at all
CREATE TABLE audit_log (event TEXT, happened_on TEXT);
-- a unique but nullable key referenced by a declared foreign key: the model fans out and has no key
CREATE TABLE labels (label_code TEXT UNIQUE, label_text TEXT);
CREATE TABLE tagged (tag_id INTEGER PRIMARY KEY, label_code TEXT REFERENCES labels(label_code));
"""


def build_shop(path: Path) -> Path:
    """A small shop in SQLite with declared and undeclared keys, odd names and keyless tables."""
    conn = sqlite3.connect(path)
    conn.executescript(SHOP_SQL)
    countries = ["DE", "FR", "US"]
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)",
                     [(i, f"Customer {i}", countries[i % 3], f"2023-0{1 + i % 9}-1{i % 10}") for i in range(1, 21)])
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
                     [(i, 1 + i % 20, round(10 + i * 1.5, 2), ["new", "paid", "shipped"][i % 3], i % 2, f"2024-0{1 + i % 9}-0{1 + i % 9}")
                      for i in range(1, 61)])
    conn.executemany("INSERT INTO products VALUES (?, ?, ?)", [(f"P{i:03d}", f"Product {i}", 2.5 * i) for i in range(1, 11)])
    conn.executemany("INSERT INTO order_lines VALUES (?, ?, ?, ?)",
                     [(i, 1 + i % 60, f"P{1 + i % 10:03d}", 1 + i % 4) for i in range(1, 151)])
    conn.executemany('INSERT INTO "Order Notes" VALUES (?, ?, ?, ?)', [(i, 1 + i % 60, f"note {i}", i % 3) for i in range(1, 31)])
    conn.executemany("INSERT INTO price_history VALUES (?, ?, ?)",
                     [(f"P{1 + i % 10:03d}", f"2024-0{1 + i // 10}-01", 1.0 + i) for i in range(30)])
    conn.executemany("INSERT INTO audit_log VALUES (?, ?)", [("login", "2024-01-01"), ("login", "2024-01-01"), ("logout", "2024-01-02")])
    conn.executemany("INSERT INTO labels VALUES (?, ?)", [("a", "x"), ("b", "y"), (None, "z"), (None, "z")])
    conn.executemany("INSERT INTO tagged VALUES (?, ?)", [(1, "a"), (2, "a"), (3, "b")])
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def shop_db(tmp_path: Path) -> Path:
    return build_shop(tmp_path / "shop.sqlite")


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture) -> Cli:
    """Run `smq` with the engine and authoring commands; returns (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        parser = argparse.ArgumentParser(prog="smq")
        sub = parser.add_subparsers(dest="command")
        engine_commands.register(sub)
        authoring_commands.register(sub)
        args = parser.parse_args([str(a) for a in argv])
        code = int(args.func(args) or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run
