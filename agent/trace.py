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
    started_at: str = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    finished_at: str | None = None
    status: str = "running"
    reason: str | None = None
    sql: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated: bool = False
    turns: list[Turn] = field(default_factory=list)

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
            "turns": [t.to_dict() for t in self.turns],
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


def _result_md(turn: Turn) -> str:
    result = turn.result or {}
    if "error" in result:
        return f"**{turn.outcome}**: {result['error']}"
    if turn.tool == "convertSmqToSql":
        parts = ["Compiled SQL:", _fence(result.get("sql", ""), "sql")]
        preview = result.get("preview")
        if preview:
            parts += ["Preview:", table_md(preview["columns"], preview["rows"])]
        elif result.get("preview_error"):
            parts.append(f"Preview failed: {result['preview_error']}")
        return "\n\n".join(parts)
    if turn.tool == "getModelDataElements":
        lines = []
        for model in result.get("models", []):
            names = [e["name"] for kind in ("dimensions", "measures", "metrics") for e in model.get(kind, [])]
            lines.append(f"- **{model['name']}**: " + ", ".join(f"`{n}`" for n in names))
        return "\n".join(lines) or "_(no models)_"
    if turn.tool == "execute":
        return f"{turn.summary}; see the result below."
    return turn.summary


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
    body: list[str] = []
    for turn in trace.turns:
        title = turn.tool or ("model call failed" if turn.outcome == "fatal" else "no tool call")
        body += ["", f"## Turn {turn.index}: {title}", ""]
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
        body += ["", f"<sub>{meta}</sub>"]
    tail = ["", "## Result", ""]
    if trace.sql is not None:
        tail += [_fence(trace.sql, "sql"), "", table_md(trace.columns, trace.rows)]
        if trace.truncated:
            tail.append("\n_(the result was truncated at the row cap)_")
    else:
        tail.append(f"No answer: {trace.reason or trace.status}.")
    return "\n".join(head + body + tail) + "\n"
