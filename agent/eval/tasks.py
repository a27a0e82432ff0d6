"""Task files: Spider 2.0-lite / -snow JSONL (or any JSONL of the same shape) read into `Task`s.

The two official files spell the same things differently: lite has `db` and `question`, snow has
`db_id` and `instruction`. Both carry `instance_id` and `external_knowledge` (the file name of a
document, or null). Reading both into one shape here keeps every other part of the harness
ignorant of which benchmark it runs. A bad line is reported as `file:line: what is wrong`, so a
hand-edited task file is fixed in one go rather than by trial.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError

DB_KEYS = ("db", "db_id")
QUESTION_KEYS = ("question", "instruction")


class EvalInputError(EngineError):
    """The run spec is wrong: a bad task file, selector, folder or flag (exit code 2)."""

    code = "invalid_eval_input"


@dataclass(frozen=True)
class Task:
    """One benchmark question: the id routes it to a backend, `db` names its database and layer."""

    instance_id: str
    db: str
    question: str
    external_knowledge: str | None = None
    line: int = 0  # 1-based line in the task file, for messages
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def _first(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if item.get(key) not in (None, ""):
            return item[key]
    return None


def parse_task(item: Any, where: str, line: int) -> Task:
    """One decoded JSONL line as a Task; raises EvalInputError naming `where` (file:line)."""
    if not isinstance(item, dict):
        raise EvalInputError(f"{where}: expected a JSON object, got {type(item).__name__}")
    instance_id = item.get("instance_id")
    if not isinstance(instance_id, str) or not instance_id.strip():
        raise EvalInputError(f"{where}: missing or empty 'instance_id'")
    db = _first(item, DB_KEYS)
    if not isinstance(db, str):
        raise EvalInputError(f"{where}: task {instance_id} has no database ('db' or 'db_id')")
    question = _first(item, QUESTION_KEYS)
    if not isinstance(question, str):
        raise EvalInputError(f"{where}: task {instance_id} has no question ('question' or 'instruction')")
    knowledge = item.get("external_knowledge")
    if knowledge is not None and not isinstance(knowledge, str):
        raise EvalInputError(f"{where}: task {instance_id}: 'external_knowledge' must be a file name or null")
    return Task(instance_id.strip(), db.strip(), question, knowledge or None, line, item)


def load_tasks(path: str | Path) -> list[Task]:
    """Every task of a JSONL file, in file order; blank lines are skipped, a repeated id is an error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EvalInputError(f"{path}: task file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalInputError(f"{path}: cannot read the task file ({exc})") from None
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalInputError(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        task = parse_task(item, where, number)
        if task.instance_id in seen:
            raise EvalInputError(f"{where}: instance_id {task.instance_id} repeats line {seen[task.instance_id]}")
        seen[task.instance_id] = number
        tasks.append(task)
    if not tasks:
        raise EvalInputError(f"{path}: the task file holds no tasks")
    return tasks


def read_external_knowledge(task: Task, documents_dir: Path | None) -> str | None:
    """The text of the task's external-knowledge document, when the folder holds it (else None)."""
    if not task.external_knowledge or documents_dir is None:
        return None
    path = documents_dir / Path(task.external_knowledge).name  # a name, never a path out of the folder
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def question_text(task: Task, knowledge: str | None) -> str:
    """The question the agent gets: the task's text, then its external-knowledge document if any.

    Spider 2.0's own baselines hand the document to the model with the question; a question that
    depends on a definition in it (a metric, a fiscal calendar) cannot be answered without it.
    """
    if not knowledge:
        return task.question
    return f"{task.question.rstrip()}\n\nExternal knowledge ({task.external_knowledge}):\n\n{knowledge.strip()}\n"
