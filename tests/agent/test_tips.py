"""The tip library: its data is sound, each category's tips fire by their rules (and only then), a run
never repeats a tip, and tips come back with compile results and repairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlglot

from agent import AgentConfig, run_agent
from agent.providers.scripted import ScriptedProvider, call
from agent.tips import CATEGORIES, TipRetriever, TipsError, load_tips, parse_tips, sql_features
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ


def fired(question: str, sql: str | None = None, dialect: str = "duckdb", smq: dict[str, Any] | None = None,
          place: str = "compile") -> list[str]:
    tree = sqlglot.parse_one(sql, read=dialect) if sql else None
    return [t.id for t in TipRetriever(question, dialect, cap=100).retrieve(tree, smq, place)]


def test_the_library_has_enough_tips_in_every_category():
    tips = load_tips()
    assert len(tips) >= 40
    assert {t.category for t in tips} == set(CATEGORIES)
    assert len({t.id for t in tips}) == len(tips)
    assert all(t.text and len(t.text) < 400 for t in tips)


@pytest.mark.parametrize("data, message", [
    ({"tips": [{"id": "a", "category": "sorting", "text": "t"}]}, "needs id, category, text and when"),
    ({"tips": [{"id": "a", "category": "cooking", "text": "t", "when": {"sql": "Div"}}]}, "unknown category"),
    ({"tips": [{"id": "a", "category": "sorting", "text": "t", "when": {"sqll": "Div"}}]}, "`when` needs"),
    ({"tips": [{"id": "a", "category": "sorting", "text": "t", "when": {"question": "("}}]}, "bad regular expression"),
    ({"tips": [{"id": "a", "category": "sorting", "text": "t", "when": {"sql": "Div", "at": "later"}}]}, "`at` takes"),
    ({"tips": [{"id": "a", "category": "sorting", "text": "t", "when": {"sql": "Div"}}] * 2}, "duplicate id"),
])
def test_malformed_tips_are_refused_with_the_tip_named(data, message):
    with pytest.raises(TipsError, match=message):
        parse_tips(data)


# One case per category: the question and SQL that trigger a tip of it.
CASES = [
    ("evidence", "evidence-external-document", "What is the churn?\n\nExternal knowledge (churn.md):\n\nChurn is ...", None),
    ("evidence", "evidence-definition", "Which clients are loyal? Loyal refers to more than 10 orders.", None),
    ("string matching", "string-exact-spelling", "Orders of Bob", "SELECT COUNT(*) FROM o WHERE name = 'Bob'"),
    ("string matching", "string-like-case", "Products named like lamp", "SELECT * FROM p WHERE name LIKE '%lamp%'"),
    ("output columns", "output-count-only", "How many orders were returned?", None),
    ("output columns", "output-distinct", "How many different products were sold?", None),
    ("table selection", "table-fewest-tables", "Revenue per region",
     "SELECT r.n, SUM(x) FROM a JOIN b ON a.k = b.k JOIN r ON b.r = r.id GROUP BY 1"),
    ("joins", "join-left-vs-inner", "Orders per customer", "SELECT c.n, COUNT(o.id) FROM c LEFT JOIN o ON o.c = c.id GROUP BY 1"),
    ("joins", "join-count-distinct-parent", "How many customers ordered toys?",
     "SELECT COUNT(c.id) FROM c JOIN o ON o.c = c.id WHERE o.cat = 'toys'"),
    ("filters", "filter-year-range", "Revenue in 2024", None),
    ("filters", "filter-threshold-bounds", "Customers with more than 5 orders", None),
    ("aggregation", "agg-average-of-averages", "Average order value per month, averaged",
     "WITH m AS (SELECT AVG(v) a FROM o GROUP BY mon) SELECT AVG(a) FROM m"),
    ("aggregation", "agg-median", "Median basket size", None),
    ("sorting", "sort-rank-nulls", "Which product has the highest rating?", "SELECT name FROM p ORDER BY rating DESC LIMIT 1"),
    ("sorting", "sort-nth-value", "Who has the second-highest salary?", None),
    ("multi-step logic", "steps-growth", "Year-over-year growth of revenue", None),
    ("multi-step logic", "steps-consecutive", "Longest streak of consecutive days with orders", None),
    ("syntax", "syntax-integer-division", "Share of returned orders", "SELECT SUM(r) / COUNT(*) FROM o"),
    ("syntax", "syntax-window-in-where", "Rank products", "SELECT RANK() OVER (ORDER BY x) FROM p"),
    ("pitfalls", "pitfall-union-duplicates", "Customers or suppliers in Paris", "SELECT a FROM c UNION SELECT a FROM s"),
    ("pitfalls", "pitfall-case-without-else", "Orders by size class", "SELECT CASE WHEN n > 3 THEN 'big' END FROM o"),
]


@pytest.mark.parametrize("category, tip, question, sql", CASES, ids=[c[1] for c in CASES])
def test_each_category_fires_by_its_rules(category, tip, question, sql):
    assert tip in fired(question, sql)
    assert next(t for t in load_tips() if t.id == tip).category == category


def test_every_category_is_covered_by_a_case():
    assert {c[0] for c in CASES} == set(CATEGORIES)


@pytest.mark.parametrize("tip, question, sql, dialect", [
    ("output-count-only", "Which products sold best?", None, "duckdb"),  # no "how many"
    ("sort-rank-nulls", "Which product has the highest rating?", "SELECT name FROM p", "duckdb"),  # no ORDER BY yet
    ("string-like-case", "Products named like lamp", "SELECT * FROM p WHERE name LIKE '%lamp%'", "sqlite"),  # SQLite LIKE ignores case
    ("syntax-integer-division", "Share of returned orders", "SELECT 1.0 * SUM(r) / COUNT(*) FROM o", "duckdb"),  # already float
    ("syntax-ratio-float", "Share of returned orders", "SELECT SUM(r) / COUNT(*) FROM o", "duckdb"),  # a division exists
    ("agg-global-vs-grouped", "How many orders per channel?", "SELECT c, COUNT(*) FROM o GROUP BY c", "duckdb"),
    ("string-name-variants", "how many orders were shipped", "SELECT COUNT(*) FROM o WHERE s = 'x'", "duckdb"),  # no capitalised name
])
def test_tips_do_not_fire_without_their_rule(tip, question, sql, dialect):
    assert tip not in fired(question, sql, dialect)


def test_dialect_smq_and_place_rules():
    sql = "SELECT COUNT(*) FROM o WHERE d >= '2024-01-01' AND d < '2025-01-01'"
    assert "filter-sqlite-text-dates" in fired("Orders in 2024", sql, "sqlite")
    assert "filter-sqlite-text-dates" not in fired("Orders in 2024", sql, "duckdb")
    assert "pitfall-smq-limit" in fired("Revenue by channel", "SELECT 1", smq={"limit": 5})
    assert "pitfall-smq-limit" not in fired("Top 5 channels by revenue", "SELECT 1", smq={"limit": 5})
    grouped = "SELECT a, COUNT(*) FROM t GROUP BY a"
    assert "syntax-group-by-columns" in fired("x", grouped, place="failed")
    assert "syntax-group-by-columns" not in fired("x", grouped, place="compile")
    assert "pitfall-empty-result" in fired("x", "SELECT * FROM t WHERE a = 1", place="rejected")
    assert "pitfall-empty-result" not in fired("x", "SELECT * FROM t WHERE a = 1", place="failed")


def test_sql_features_name_nodes_and_derived_facts():
    tree = sqlglot.parse_one("SELECT c.n, COUNT(DISTINCT o.id) / COUNT(*) FROM c LEFT JOIN o ON o.c = c.id "
                             "WHERE c.name = 'Bob' AND o.d >= '2024-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 3", read="duckdb")
    features = sql_features(tree)
    assert {"Div", "Join", "Order", "Limit", "order_limit", "order_desc", "left_join", "count_distinct", "count_star",
            "string_eq", "date_filter", "date_text_compare", "division", "int_division_risk", "aggregate"} <= features
    assert "string_eq" not in sql_features(sqlglot.parse_one("SELECT 1 FROM t WHERE d = '2024-01-01'"))
    assert sql_features(None) == set()


def test_a_run_never_repeats_a_tip_and_caps_each_result():
    retriever = TipRetriever("How many of the top products were Shipped in 2024?", "duckdb", cap=2)
    tree = sqlglot.parse_one("SELECT name, COUNT(*) FROM p WHERE s = 'Shipped' GROUP BY 1 ORDER BY 2 DESC LIMIT 3")
    first = retriever.retrieve(tree)
    second = retriever.retrieve(tree)
    assert len(first) == 2 and len(second) == 2
    assert not {t.id for t in first} & {t.id for t in second}
    everything = []
    while batch := retriever.retrieve(tree):
        everything += batch
    assert len(set(retriever.shown)) == len(retriever.shown)


def test_question_rules_rank_before_shape_rules():
    ids = [t.id for t in TipRetriever("Which three countries placed the most orders?", "duckdb", cap=3).retrieve(
        sqlglot.parse_one("SELECT n, COUNT(o) FROM o LEFT JOIN c ON 1 = 1 LEFT JOIN n ON 1 = 1 GROUP BY 1 ORDER BY 2 DESC LIMIT 3"))]
    assert ids[0] == "sort-rank-nulls"


# -- in a run -----------------------------------------------------------------------------------------------
def run(layer, executor, script, tmp_path: Path, question: str = QUESTION, **config: Any):
    provider = ScriptedProvider(script)
    result = run_agent(layer, executor, provider, question, AgentConfig(trace_dir=tmp_path / "traces", **config))
    return result, provider


def test_compile_results_carry_tips_once_and_the_trace_shows_them(layer, executor, tmp_path):
    compile_ = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
    result, provider = run(layer, executor, [compile_, compile_, call("execute", "Rank.", sql=FINAL_SQL)], tmp_path)
    assert result.status == "answered"
    first, second = result.trace.turns[0], result.trace.turns[1]
    assert 1 <= len(first.result["tips"]) <= 3 and first.tips and "sort-rank-nulls" in first.tips
    assert first.result["tips"][first.tips.index("sort-rank-nulls")].startswith("sorting: Ranking")
    assert not set(first.tips) & set(second.tips)  # no repeats within the run
    seen = provider.requests[1]["messages"][-1]
    assert seen.role == "tool" and seen.result["tips"] == first.result["tips"]  # the model reads them
    md = result.trace_path.read_text()
    assert "Tips (sort-rank-nulls" in md and "- sorting: Ranking" in md
    assert "Tips and warnings" in provider.requests[0]["system"]


def test_tips_off_means_none(layer, executor, tmp_path):
    result, provider = run(layer, executor, [call("convertSmqToSql", "c", smq=TOP_SMQ), call("execute", "e", sql=FINAL_SQL)],
                           tmp_path, tips=False, profile=False)
    assert "tips" not in result.trace.turns[0].result and result.trace.turns[0].tips == []
    assert "Tips and warnings" not in provider.requests[0]["system"]


def test_a_failed_execute_carries_repair_tips(layer, executor, tmp_path):
    broken = call("execute", "typo", sql='SELECT nation_nam, COUNT(*) FROM nations GROUP BY 1')
    result, _ = run(layer, executor, [call("convertSmqToSql", "c", smq=TOP_SMQ), broken, call("execute", "e", sql=FINAL_SQL)],
                    tmp_path, profile=False)
    failed = result.trace.turns[1]
    assert failed.outcome == "failed" and "syntax-group-by-columns" in failed.tips
    assert "replan" in failed.result["next"]
