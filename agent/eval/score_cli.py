"""``smq eval score``: score a folder of result CSVs the way Spider 2.0 does.

The lead wires ``add_arguments``/``run`` into the ``smq`` command; ``run``
returns the exit code (0 scored, 2 bad input) and never lets a traceback
reach the user for input mistakes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from agent.eval.scorer import FLAVORS, Report, ScorerInputError, score_submission

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of ``smq eval score`` on ``parser``."""
    parser.add_argument("--submission", required=True, metavar="DIR",
                        help="folder of <instance_id>.csv results (other files are ignored)")
    parser.add_argument("--gold", required=True, metavar="DIR",
                        help="folder of gold CSVs, e.g. .../gold/exec_result")
    parser.add_argument("--eval", required=True, metavar="FILE.jsonl",
                        help="eval JSONL with condition_cols and ignore_order per task")
    parser.add_argument("--json", metavar="OUT",
                        help="also write the full report, with a reason per task, to OUT")
    parser.add_argument("--flavor", choices=FLAVORS,
                        help="follow the lite or snow evaluator for every task "
                             "(default: ids starting with 'sf' follow snow, others lite)")


def format_report(report: Report) -> str:
    """Overall accuracy and a small per-prefix table, for humans."""
    lines = [f"execution accuracy: {report.accuracy:.2%} ({report.correct}/{report.total})", ""]
    width = max([len("prefix")] + [len(p) for p in report.per_prefix])
    lines.append(f"{'prefix':<{width}}  {'correct':>7}  {'total':>5}  {'accuracy':>8}")
    for prefix, s in report.per_prefix.items():
        lines.append(f"{prefix:<{width}}  {s.correct:>7}  {s.total:>5}  {s.accuracy:>8.2%}")
    missing = sum(1 for s in report.instances if s.reason == "no prediction file")
    if missing:
        lines += ["", f"{missing} task(s) had no prediction file (counted wrong)"]
    return "\n".join(lines)


def _write_json(report: Report, out: str) -> None:
    try:
        Path(out).write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ScorerInputError(f"{out}: cannot write report ({exc.strerror or exc})") from exc


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Score the submission, print the summary, optionally write JSON; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        report = score_submission(args.submission, args.gold, args.eval,
                                  flavor=getattr(args, "flavor", None))
        if getattr(args, "json", None):
            _write_json(report, args.json)
    except ScorerInputError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    print(format_report(report), file=out)
    return EXIT_OK
