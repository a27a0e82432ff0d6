"""CPU time of a running process as the kernel counts it (/proc/<pid>/task/*/schedstat): every thread, and with
`process_tree_cpu_ns` its children too (a service's DuckDB worker processes run its queries)."""

from __future__ import annotations

from pathlib import Path


def process_cpu_ns(pid: int) -> int:
    """CPU of every thread of one process so far, in nanoseconds."""
    total = 0
    for task in _tasks(pid):
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread that just ended
            pass
    return total


def process_tree_cpu_ns(pid: int) -> int:
    """CPU of a process and of its children, recursively, in nanoseconds."""
    children: list[int] = []
    for task in _tasks(pid):
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return process_cpu_ns(pid) + sum(process_tree_cpu_ns(child) for child in children)


def _tasks(pid: int) -> list[Path]:
    try:
        return list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return []
