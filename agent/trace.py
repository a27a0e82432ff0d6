"""A run's trace: every turn's reasoning, tool call and result, saved as Markdown (for people) and JSON.

The Markdown reads top to bottom like a lab notebook: per turn the reasoning, the call (SMQs and SQL
in fenced blocks), and a short account of the result (previews as small tables). The JSON holds the
same and the full tool results, for tooling (evaluation, replay).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .providers.base import Usage

MD_ROWS = 20  # rows of the final result shown in the Markdown trace (the JSON has them all)


@dataclass
class Turn:
    index: int
    reasoning: str = ""
    thoughts: str = ""
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    outcome: str = "no_call"  # ok | error | refused | failed | answered | fatal | no_call
    summary: str = ""
    usage: Usage = field(default_factory=Usage)
    elapsed_ms: float = 0.0
    retries: int = 0
    ignored_calls: list[str] = field(default_factory=list)  # extra calls of the same turn, not run
    plan: int | None = None  # plan voting: which attempt made this turn
    tips: list[str] = field(default_factory=list)  # ids of the tips the result carried
    profiles: list[dict[str, Any]] = field(default_factory=list)  # column profiles behind the result's warnings
    pool: list[dict[str, Any]] | None = None  # the clarification pool after an ask_user / drop_question

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["usage"] = self.usage.to_dict()
        return out


@dataclass
class Trace:
    run_id: str
    database: str
    question: str
    provider: str
    model: str
    dialect: str
    role: str | None = None
    started_at: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    finished_at: str | None = None
    status: str = "running"
    reason: str | None = None
    sql: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated: bool = False
    turns: list[Turn] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    clarifications: list[dict[str, str]] = field(default_factory=list)
    pool: list[dict[str, Any]] | None = None  # the clarification pool at the end (None: clarification off)
    vote: dict[str, Any] | None = None  # plan voting: groups, winner, every candidate

    @property
    def usage(self) -> Usage:
        total = Usage()
        for turn in self.turns:
            total = total + turn.usage
        return total

    def tokens(self) -> dict[str, Any]:
        """Totals and per turn, as every surface reports them."""
        return {**self.usage.to_dict(), "turns": [{"turn": t.index, **t.usage.to_dict()} for t in self.turns]}

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "database": self.database, "question": self.question, "provider": self.provider,
            "model": self.model, "dialect": self.dialect, "role": self.role, "started_at": self.started_at,
            "finished_at": self.finished_at, "status": self.status, "reason": self.reason, "sql": self.sql,
            "columns": self.columns, "rows": self.rows, "truncated": self.truncated, "tokens": self.tokens(),
            "assumptions": self.assumptions, "clarifications": self.clarifications, "pool": self.pool,
            "vote": self.vote, "turns": [t.to_dict() for t in self.turns],
        }

    def file_stem(self) -> str:
        stamp = dt.datetime.fromisoformat(self.started_at).strftime("%Y%m%d-%H%M%S")
        return f"{self.database}-{stamp}-{self.run_id[:8]}"

    def save(self, folder: Path) -> Path:
        """Write `<db>-<timestamp>-<id>.md` and `.json` into `folder`; returns the Markdown path."""
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / self.file_stem()
        stem.with_suffix(".json").write_text(json.dumps(self.to_dict(), indent=2, default=str) + "\n", encoding="utf-8")
        md = stem.with_suffix(".md")
        md.write_text(to_markdown(self), encoding="utf-8")
        return md


# -- Markdown --------------------------------------------------------------------------------
def _cell(value: Any) -> str:
    text = "NULL" if value is None else str(value)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def table_md(columns: list[str], rows: list[list[Any]], limit: int = MD_ROWS) -> str:
    """A small Markdown table; more rows than `limit` are counted, not shown."""
    if not columns:
        return "_(no columns)_"
    lines = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"\n_... {len(rows) - limit} more row(s)_")
    if not rows:
        lines.append("\n_(no rows)_")
    return "\n".join(lines)


def _fence(text: str, lang: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in text.strip().splitlines())


def _arguments_md(turn: Turn) -> str:
    args = turn.arguments or {}
    if turn.tool == "execute" and isinstance(args.get("sql"), str):
        return _fence(args["sql"], "sql")
    if turn.tool == "convertSmqToSql" and "smq" in args:
        return _fence(json.dumps(args["smq"], indent=2, default=str), "json")
    return _fence(json.dumps(args, default=str), "json")


def _checks_md(turn: Turn) -> list[str]:
    """Tips, profile warnings and the column profiles behind them, as a person reads them."""
    result = turn.result or {}
    parts = []
    if result.get("tips"):
        ids = f" ({', '.join(turn.tips)})" if turn.tips else ""
        parts.append(f"Tips{ids}:\n\n" + "\n".join(f"- {t}" for t in result["tips"]))
    if result.get("warnings"):
        parts.append("Profile warnings:\n\n" + "\n".join(f"- {w}" for w in result["warnings"]))
    if turn.profiles:
        cols = ["column", "clause", "rows", "NULL share", "distinct", "min", "max"]
        rows = [[p.get("column"), p.get("clause", ""), p.get("rows"), f"{p.get('null_share', 0):.1%}", p.get("distinct"),
                 p.get("min"), p.get("max")] for p in turn.profiles]
        parts.append("<details><summary>column profiles</summary>\n\n" + table_md(cols, rows) + "\n\n</details>")
    return parts


def _pool_md(pool: list[dict[str, Any]] | None) -> str:
    if not pool:
        return "_(the pool is empty)_"
    lines = []
    for q in pool:
        tail = {"answered": f": {q.get('answer')}", "dropped": f", assuming: {q.get('reason')}"}.get(q["status"], "")
        lines.append(f"- [{q['status']}] {q['question']}{tail}")
    return "\n".join(lines)


def _result_md(turn: Turn) -> str:
    result = turn.result or {}
    if "error" in result:
        return "\n\n".join([f"**{turn.outcome}**: {result['error']}"] + _checks_md(turn))
    if turn.tool == "convertSmqToSql":
        parts = ["Compiled SQL:", _fence(result.get("sql", ""), "sql")]
        preview = result.get("preview")
        if preview:
            parts += ["Preview:", table_md(preview["columns"], preview["rows"])]
        elif result.get("preview_error"):
            parts.append(f"Preview failed: {result['preview_error']}")
        return "\n\n".join(parts + _checks_md(turn))
    if turn.tool == "execute" and turn.outcome == "rejected":
        parts = [f"**rejected**: {result.get('problem')} ({result.get('row_count', 0)} row(s))"]
        if result.get("columns"):
            parts.append(table_md(result["columns"], result.get("rows", []), limit=5))
        parts += _checks_md(turn)
        if result.get("next"):
            parts.append(f"_{result['next']}_")
        return "\n\n".join(parts)
    if turn.tool in ("ask_user", "drop_question"):
        return f"{turn.summary}\n\nClarification pool:\n\n{_pool_md(turn.pool)}"
    if turn.tool == "getModelDataElements":
        lines = []
        for model in result.get("models", []):
            names = [e["name"] for kind in ("dimensions", "measures", "metrics") for e in model.get(kind, [])]
            lines.append(f"- **{model['name']}**: " + ", ".join(f"`{n}`" for n in names))
        return "\n".join(lines) or "_(no models)_"
    if turn.tool == "execute":
        return f"{turn.summary}; see the result below."
    return turn.summary


def _vote_md(vote: dict[str, Any]) -> list[str]:
    cols = ["plan", "status", "group", "rows", "columns", "first row", "turns", "tokens"]
    rows = [[c["plan"], c["status"], c.get("group") or "-", c["row_count"], ", ".join(c["columns"]),
             ", ".join("NULL" if v is None else str(v) for v in c["rows"][0]) if c["rows"] else "-", c["turns"], c["tokens"]]
            for c in vote["candidates"]]
    groups = ", ".join("{" + ", ".join(map(str, g)) + "}" for g in vote["groups"]) or "none"
    why = f"; tie broken by {vote['tie_break']}" if vote.get("tie_break") else ""
    out = ["", "## Vote", "", f"{vote['plans']} plans; groups of equivalent answers: {groups}; "
           f"winner: **plan {vote['winner']}**{why}.", "", table_md(cols, rows)]
    for c in vote["candidates"]:
        if c.get("sql"):
            out += ["", f"<details><summary>plan {c['plan']} SQL</summary>", "", _fence(c["sql"].strip(), "sql"), "", "</details>"]
    return out


def _turn_md(turn: Turn, level: str) -> list[str]:
    title = turn.tool or ("model call failed" if turn.outcome == "fatal" else "no tool call")
    body = ["", f"{level} Turn {turn.index}: {title}", ""]
    if turn.reasoning.strip():
        body += [_quote(turn.reasoning), ""]
    if turn.thoughts.strip():
        body += ["<details><summary>thought summary</summary>", "", turn.thoughts.strip(), "", "</details>", ""]
    if turn.tool:
        body += [_arguments_md(turn), "", _result_md(turn)]
    else:
        body.append(f"_{turn.summary or 'the model made no tool call'}_")
    if turn.ignored_calls:
        body += ["", f"_Extra calls not run (one call per turn): {', '.join(turn.ignored_calls)}_"]
    meta = f"{turn.usage.input} in / {turn.usage.output} out / {turn.usage.thinking} thinking tokens, {turn.elapsed_ms:.0f} ms"
    if turn.retries:
        meta += f", {turn.retries} retr{'y' if turn.retries == 1 else 'ies'}"
    return body + ["", f"<sub>{meta}</sub>"]


def to_markdown(trace: Trace) -> str:
    usage = trace.usage
    head = [
        f"# {trace.question}",
        "",
        f"- database: `{trace.database}` ({trace.dialect})" + (f", role `{trace.role}`" if trace.role else ""),
        f"- model: {trace.provider} / `{trace.model}`",
        f"- run: `{trace.run_id}`, started {trace.started_at}, finished {trace.finished_at or '-'}",
        f"- status: **{trace.status}**" + (f" ({trace.reason})" if trace.reason else ""),
        f"- turns: {len(trace.turns)}; tokens: {usage.input} in, {usage.output} out, {usage.thinking} thinking, {usage.total} total",
    ]
    if trace.assumptions:
        head += ["- assumptions:"] + [f"  - {a}" for a in trace.assumptions]
    if trace.clarifications:
        head += ["- the user clarified:"] + [f"  - {c['question']} -> {c['answer']}" for c in trace.clarifications]
    body: list[str] = _vote_md(trace.vote) if trace.vote else []
    plan = None
    for turn in trace.turns:
        if turn.plan is not None and turn.plan != plan:
            plan = turn.plan
            candidate = next((c for c in (trace.vote or {}).get("candidates", []) if c["plan"] == plan), None)
            status = f" ({candidate['status']}, group {candidate.get('group') or '-'})" if candidate else ""
            body += ["", f"## Plan {plan}{status}"]
        body += _turn_md(turn, "###" if turn.plan is not None else "##")
    if trace.pool is not None and trace.status == "needs_clarification":
        body += ["", "## Waiting for the user", "", _pool_md(trace.pool)]
    tail = ["", "## Result", ""]
    if trace.sql is not None:
        tail += [_fence(trace.sql, "sql"), "", table_md(trace.columns, trace.rows)]
        if trace.truncated:
            tail.append("\n_(the result was truncated at the row cap)_")
    else:
        tail.append(f"No answer: {trace.reason or trace.status}.")
    return "\n".join(head + body + tail) + "\n"
