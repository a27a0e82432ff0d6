"""Retrieve tips for the SQL being written: deterministic rules over the question, the SMQ and the SQL.

APEX-SQL's observation is that agents make the same handful of mistakes (ranking over NULLs, integer
division, string filters that match nothing, counts where a count is not asked) and that a short,
well-timed reminder fixes many of them. The tips are data (`tips.yml`); this module decides which
fire. A tip fires when every condition it lists holds:

- `question`: any of these regular expressions matches the question (case-insensitive);
- `not_question`: none of them matches;
- `sql`: any of these features is present in the SQL written so far; `sql_all`: all are; `not_sql`: none;
- `smq`: any of these SMQ keys is present and non-empty (`filters`, `group_by`, `order_by`, `limit`);
- `dialect`: the database's dialect is one of these;
- `at`: where the tip may be shown: `compile` (a convertSmqToSql result), `failed` (an execute the
  database rejected), `rejected` (an execute whose result looked wrong), `repair` (both of the latter);
  everywhere when absent.

Features are sqlglot node class names present in the tree (`Div`, `Window`, `Like`, ...) plus the
derived, snake_case features of `sql_features` (`order_limit`, `string_eq`, `int_division_risk`, ...).
A run keeps a `TipRetriever`: it never repeats a tip and returns at most `cap` per result, the most
specific first (more conditions), then in file order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, TypeGuard

import yaml
from sqlglot import exp

CONDITION_KEYS = ("question", "not_question", "sql", "sql_all", "not_sql", "smq", "dialect", "at")
CATEGORIES = ("evidence", "string matching", "output columns", "table selection", "joins", "filters", "aggregation",
              "sorting", "multi-step logic", "syntax", "pitfalls")
PLACES = ("compile", "failed", "rejected")
PLACE_ALIASES = {"repair": ("failed", "rejected")}
DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
FLOAT_TYPES = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT, exp.DataType.Type.DECIMAL}


class TipsError(ValueError):
    """tips.yml is malformed: the message names the tip and the problem."""


@dataclass(frozen=True)
class Tip:
    id: str
    category: str
    text: str
    when: Mapping[str, tuple[str, ...]]
    patterns: tuple[re.Pattern[str], ...] = ()
    anti_patterns: tuple[re.Pattern[str], ...] = ()

    @property
    def specificity(self) -> int:
        """More conditions = a more specific tip, shown first; a question rule counts double, because a tip
        the question itself asks for is more to the point than one the SQL's shape alone suggests."""
        return sum(2 if key == "question" else 1 for key in self.when if key != "at")

    def matches(self, question: str, features: set[str], smq: Mapping[str, Any] | None, dialect: str, place: str) -> bool:
        when = self.when
        if place not in when.get("at", PLACES):
            return False
        if self.patterns and not any(p.search(question) for p in self.patterns):
            return False
        if any(p.search(question) for p in self.anti_patterns):
            return False
        if "sql" in when and not features.intersection(when["sql"]):
            return False
        if "sql_all" in when and not features.issuperset(when["sql_all"]):
            return False
        if "not_sql" in when and features.intersection(when["not_sql"]):
            return False
        if "smq" in when and not any((smq or {}).get(key) for key in when["smq"]):
            return False
        return "dialect" not in when or dialect.lower() in when["dialect"]

    def render(self) -> str:
        return f"{self.category}: {self.text}"


def _tuple(value: Any, where: str) -> tuple[str, ...]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise TipsError(f"{where}: expected a string or a non-empty list of strings")
    return tuple(values)


def parse_tips(data: Any) -> list[Tip]:
    """Tips from the parsed YAML (`{"tips": [...]}`), checked: unknown keys and categories are errors."""
    items = data.get("tips") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise TipsError("tips.yml must hold a `tips:` list")
    tips, seen = [], set()
    for i, item in enumerate(items):
        where = f"tip #{i + 1} ({item.get('id', '?') if isinstance(item, dict) else '?'})"
        if not isinstance(item, dict) or not {"id", "category", "text", "when"} <= set(item):
            raise TipsError(f"{where}: needs id, category, text and when")
        if item["id"] in seen:
            raise TipsError(f"{where}: duplicate id")
        seen.add(item["id"])
        if item["category"] not in CATEGORIES:
            raise TipsError(f"{where}: unknown category {item['category']!r} (one of {', '.join(CATEGORIES)})")
        raw = item["when"]
        if not isinstance(raw, dict) or not raw or set(raw) - set(CONDITION_KEYS):
            raise TipsError(f"{where}: `when` needs at least one of {', '.join(CONDITION_KEYS)} and nothing else")
        when = {key: _tuple(value, f"{where}.when.{key}") for key, value in raw.items()}
        if "dialect" in when:
            when["dialect"] = tuple(d.lower() for d in when["dialect"])
        if "at" in when:
            when["at"] = tuple(p for place in when["at"] for p in PLACE_ALIASES.get(place, (place,)))
            if set(when["at"]) - set(PLACES):
                raise TipsError(f"{where}: `at` takes {', '.join(PLACES + tuple(PLACE_ALIASES))}")
        try:
            patterns = tuple(re.compile(p, re.IGNORECASE) for p in when.get("question", ()))
            anti = tuple(re.compile(p, re.IGNORECASE) for p in when.get("not_question", ()))
        except re.error as err:
            raise TipsError(f"{where}: bad regular expression: {err}") from None
        tips.append(Tip(item["id"], item["category"], " ".join(str(item["text"]).split()), when, patterns, anti))
    return tips


@lru_cache(maxsize=1)
def load_tips() -> tuple[Tip, ...]:
    """The packaged tip library (agent/tips/tips.yml), parsed once."""
    text = resources.files(__package__).joinpath("tips.yml").read_text(encoding="utf-8")
    return tuple(parse_tips(yaml.safe_load(text)))


# -- features of the SQL ---------------------------------------------------------------------------
def _is_string(node: exp.Expression | None) -> TypeGuard[exp.Literal]:
    return isinstance(node, exp.Literal) and node.is_string


def _is_date_literal(node: exp.Expression | None) -> bool:
    if isinstance(node, exp.Cast) and node.to.is_type(*exp.DataType.TEMPORAL_TYPES):
        return True
    return _is_string(node) and bool(DATE_TEXT.match(node.this))


def _has_column(node: exp.Expression | None) -> bool:
    return node is not None and (isinstance(node, exp.Column) or node.find(exp.Column) is not None)


def _float_operand(node: exp.Expression) -> bool:
    """An operand that makes a division floating point: a decimal literal or a cast to a float/decimal type."""
    for sub in node.walk():
        if isinstance(sub, exp.Literal) and not sub.is_string and "." in str(sub.this):
            return True
        if isinstance(sub, exp.Cast) and sub.to.this in FLOAT_TYPES:
            return True
    return False


def sql_features(tree: exp.Expr | None) -> set[str]:
    """The features tips trigger on: node class names, plus derived snake_case facts about the query."""
    if tree is None:
        return set()
    nodes = list(tree.walk())
    out = {type(n).__name__ for n in nodes}
    add = out.add
    for node in nodes:
        if isinstance(node, exp.Select):
            if node.args.get("order") is not None and node.args.get("limit") is not None:
                add("order_limit")
            if node.find(exp.AggFunc) is not None and node.args.get("group") is None and not node.find(exp.Window):
                add("agg_no_group")
            if any(isinstance(e, exp.Star) for e in node.expressions):
                add("select_star")
        elif isinstance(node, exp.Ordered) and node.args.get("desc"):
            add("order_desc")
        elif isinstance(node, (exp.EQ, exp.NEQ)):
            sides = (node.this, node.expression)
            if any(_is_string(s) and not DATE_TEXT.match(s.this) for s in sides) and any(_has_column(s) for s in sides):
                add("string_eq")
        elif isinstance(node, exp.In) and any(_is_string(e) for e in node.expressions):
            add("string_eq")
        elif isinstance(node, (exp.Like, exp.ILike)):
            add("string_like")
        elif isinstance(node, exp.Div):
            add("division")
            if not (_float_operand(node.this) or _float_operand(node.expression)):
                add("int_division_risk")
        elif isinstance(node, exp.Join):
            add("join")
            side = (node.args.get("side") or "").upper()
            add("left_join" if side == "LEFT" else "inner_join" if not side else f"{side.lower()}_join")
        elif isinstance(node, exp.Count):
            inner = node.this
            add("count_distinct" if isinstance(inner, exp.Distinct) else "count_star" if isinstance(inner, exp.Star) else "count")
        elif isinstance(node, exp.Window) and isinstance(node.this, (exp.Rank, exp.DenseRank, exp.RowNumber)):
            add("rank_window")
        elif isinstance(node, (exp.DateTrunc, exp.TimestampTrunc, exp.Extract, exp.TimeToStr)):
            add("time_grain")
        if isinstance(node, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.Between)):
            operands = [node.this, node.expression] if not isinstance(node, exp.Between) else [node.args.get("low"), node.args.get("high")]
            if any(_is_date_literal(o) for o in operands):
                add("date_filter")
                if any(_is_string(o) for o in operands):
                    add("date_text_compare")
    if sum(1 for _ in tree.find_all(exp.Join)) > 1:
        add("multi_join")
    if tree.find(exp.AggFunc) is not None:
        add("aggregate")
    if tree.find(exp.Not) is not None and any(isinstance(n.this, exp.In) for n in tree.find_all(exp.Not)):
        add("not_in")
    return out


# -- one run's retrieval ---------------------------------------------------------------------------
@dataclass
class TipRetriever:
    """Tips for one run: never the same tip twice, at most `cap` per result."""

    question: str
    dialect: str
    cap: int = 3
    library: tuple[Tip, ...] = field(default_factory=load_tips)
    shown: list[str] = field(default_factory=list)

    def retrieve(self, tree: exp.Expr | None, smq: Mapping[str, Any] | None = None, place: str = "compile") -> list[Tip]:
        """The tips this SQL (and SMQ) trigger now, most specific first; they are marked shown."""
        features = sql_features(tree)
        hits = [t for t in self.library if t.id not in self.shown and t.matches(self.question, features, smq, self.dialect, place)]
        hits.sort(key=lambda t: -t.specificity)  # stable: file order among equals
        chosen = hits[: max(0, self.cap)]
        self.shown.extend(t.id for t in chosen)
        return chosen


def render(tips: Iterable[Tip]) -> list[str]:
    """Tips as the model reads them: `category: text`."""
    return [t.render() for t in tips]
