"""`smq eval run` (the Spider 2.0 harness) and `smq eval score` (the execution-accuracy scorer).

Exit codes of `eval run`: 0 the run finished (whatever the answers; see the summary and run.json);
2 bad input (task file, selector, folder, flag); 3 not configured (no model, or no connection for a
backend the selected instances need); 130 interrupted (finished instances are kept: run again to
resume). `eval score`: 0 scored, 2 bad input (see docs/evaluation-scoring.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..exit_codes import ExitCode
from ..messages import error_line
from .agent_commands import add_reasoning_flags, reasoning_overrides

EVAL_HELP = "Spider 2.0 evaluation: run the agent on benchmark tasks, score the results"


def register_summary(sub: argparse._SubParsersAction) -> None:
    """Only the name and help, for `smq --help`: `eval score`'s options come from the scorer, which imports pandas."""
    sub.add_parser("eval", help=EVAL_HELP)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help=EVAL_HELP)
    eval_sub = p.add_subparsers(dest="eval_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(sys.stderr), ExitCode.BAD_INPUT)[1])
    _register_run(eval_sub)
    _register_score(eval_sub)


def _register_run(eval_sub: argparse._SubParsersAction) -> None:
    r = eval_sub.add_parser(
        "run", help="answer benchmark tasks; write <id>.sql/.csv/.md and run.json",
        description="Run the agent (or, with --oracle-sql, given SQL files) on selected Spider 2.0 tasks, N at a "
                    "time, and write Spider 2.0 result files. Finished instances in --out are skipped (resume). "
                    "Model: $SMQ_PROVIDER, $SMQ_MODEL, $GEMINI_API_KEY or $OPENAI_BASE_URL/$OPENAI_API_KEY; flags win. "
                    "See docs/evaluation.md.")
    r.add_argument("--tasks", required=True, type=Path, metavar="FILE",
                   help="task JSONL: spider2-lite.jsonl, spider2-snow.jsonl, or any with instance_id, db, question")
    r.add_argument("--select", required=True, metavar="SPEC",
                   help="instances: ids, ranges (local001-local050), prefixes (local*, bq), all; comma-separated")
    r.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder (created; reused to resume)")
    r.add_argument("--workers", type=int, default=4, metavar="N", help="instances run at once (default 4)")
    r.add_argument("--timeout", type=float, default=600.0, metavar="S", help="seconds per instance, retries included (default 600)")
    r.add_argument("--models-dir", type=Path, metavar="DIR",
                   help="semantic layers, one folder per database (default: $SMQ_MODELS_DIR, then ./semantic_models)")
    r.add_argument("--sqlite-dir", type=Path, metavar="DIR", help="folder of <db>.sqlite files for local* instances")
    r.add_argument("--oracle-sql", type=Path, metavar="DIR",
                   help="run <DIR>/<id>.sql instead of the agent (no model, no layer): checks the harness against the gold")
    r.add_argument("--snowflake-connection", type=Path, metavar="FILE",
                   default=_env_path("SMQ_SNOWFLAKE_CONNECTION"),
                   help="YAML/JSON Snowflake settings for sf* instances (default: $SMQ_SNOWFLAKE_CONNECTION)")
    r.add_argument("--bigquery-connection", type=Path, metavar="FILE", default=_env_path("SMQ_BIGQUERY_CONNECTION"),
                   help="YAML/JSON BigQuery settings for bq*/ga* instances (default: $SMQ_BIGQUERY_CONNECTION)")
    r.add_argument("--bigquery-project", metavar="PROJECT",
                   help="BigQuery project billed for queries; credentials from $GOOGLE_APPLICATION_CREDENTIALS")
    r.add_argument("--documents", type=Path, metavar="DIR",
                   help="external-knowledge documents (default: the task file's folder's documents/ when present)")
    r.add_argument("--provider", choices=["gemini", "openai"], help="model provider (default: $SMQ_PROVIDER, then gemini)")
    r.add_argument("--model", help="model name (default: $SMQ_MODEL)")
    r.add_argument("--max-turns", type=int, metavar="N", help="agent step budget per instance (default 30)")
    r.add_argument("--tools", metavar="A,B,...", help="also switch on exploration tools (docs/directives.md, The exploration tools), e.g. "
                   "listModels,describeTable,getColValues (default: $SMQ_AGENT_TOOLS, else only the three core tools)")
    add_reasoning_flags(r)  # --tips, --profile, --clarify (off: nobody answers during an evaluation), --plans, --repair-rounds
    r.add_argument("--query-timeout", type=float, metavar="S", help="per-query timeout of the agent's SQL (default 30)")
    r.add_argument("--retries", type=int, default=2, metavar="N",
                   help="whole-instance retries after a model call failed on rate limits or server errors (default 2)")
    r.add_argument("--max-rows", type=int, default=100_000, metavar="N", help="rows kept from a final result (default 100000)")
    r.add_argument("--overwrite", action="store_true", help="run finished instances again instead of skipping them")
    r.add_argument("--gold", type=Path, metavar="DIR", help="with --eval: score the selected instances at the end")
    r.add_argument("--eval", type=Path, metavar="FILE", help="eval JSONL (condition_cols, ignore_order) for --gold")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_eval_run)


def _register_score(eval_sub: argparse._SubParsersAction) -> None:
    s = eval_sub.add_parser("score", help="score a folder of <id>.csv results like Spider 2.0 (execution accuracy)",
                            description="Score result CSVs with the official Spider 2.0 rules. See docs/evaluation-scoring.md.")
    try:
        from agent.eval import score_cli
    except ImportError as exc:  # the scorer reads CSVs with pandas
        missing = str(exc)
        for flag in ("--submission", "--gold", "--eval", "--json", "--flavor"):  # accepted, so the hint below is what users see
            s.add_argument(flag)
        s.set_defaults(func=lambda args: _missing(f"smq eval score needs pandas ({missing}): pip install 'smq-semantic-layer[eval]'"))
        return
    score_cli.add_arguments(s)
    s.set_defaults(func=lambda args: score_cli.run(args))


def _missing(message: str) -> int:
    print(f"smq: {message}", file=sys.stderr)
    return ExitCode.NOT_CONFIGURED


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _connections(args: argparse.Namespace) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    from agent.eval.connections import BIGQUERY, SNOWFLAKE, read_connection_file

    snowflake = read_connection_file(args.snowflake_connection, SNOWFLAKE) if args.snowflake_connection else None
    bigquery = read_connection_file(args.bigquery_connection, BIGQUERY) if args.bigquery_connection else None
    if args.bigquery_project:
        bigquery = {**(bigquery or {"backend": BIGQUERY}), "project": args.bigquery_project}
    return snowflake, bigquery


def _models_dir(args: argparse.Namespace) -> Path | None:
    if args.models_dir is not None:
        return args.models_dir
    from engine import default_models_dir

    default = default_models_dir()
    return default if default.is_dir() else None


def build_spec(args: argparse.Namespace) -> Any:
    """The EvalSpec of the flags; raises EvalInputError / AgentConfigError for bad values."""
    from agent import AgentConfig
    from agent.config import parse_tools
    from agent.eval.harness import EvalSpec

    if (args.gold is None) != (args.eval is None):
        from agent.eval.tasks import EvalInputError

        raise EvalInputError("--gold and --eval go together (the gold folder and the eval JSONL)")
    snowflake, bigquery = _connections(args)
    config = None
    if args.oracle_sql is None:
        config = AgentConfig.from_env(provider=args.provider, model=args.model, max_turns=args.max_turns,
                                      query_timeout_s=args.query_timeout,
                                      tools=parse_tools(args.tools) if args.tools is not None else None,
                                      **reasoning_overrides(args, clarify_default=False))
    return EvalSpec(tasks_file=args.tasks, select=args.select, out_dir=args.out, workers=args.workers,
                    timeout_s=args.timeout, models_dir=_models_dir(args), sqlite_dir=args.sqlite_dir,
                    oracle_sql_dir=args.oracle_sql, snowflake_connection=snowflake, bigquery_connection=bigquery,
                    documents_dir=args.documents, retries=args.retries, overwrite=args.overwrite, max_rows=args.max_rows,
                    agent_config=config)


def cmd_eval_run(args: argparse.Namespace) -> int:
    from agent import AgentConfigError, AgentNotConfigured
    from agent.eval.harness import EvalNotConfigured, run_eval
    from agent.eval.progress import NoProgress, ProgressBar
    from agent.eval.tasks import EvalInputError

    try:
        spec = build_spec(args)
        summary = run_eval(spec, progress=NoProgress() if args.quiet else ProgressBar(sys.stderr))
    except (AgentNotConfigured, EvalNotConfigured) as err:
        print(f"smq: {err.message}", file=sys.stderr)
        return ExitCode.NOT_CONFIGURED
    except (EvalInputError, AgentConfigError) as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    print(summary.text())
    if args.gold is not None:
        ids = [r.instance_id for r in summary.records] + summary.skipped
        return score_selected(spec.out_dir, args.gold, args.eval, ids)
    print(f"\nscore it: smq eval score --submission {spec.out_dir} --gold GOLD_DIR --eval EVAL.jsonl")
    return ExitCode.OK


def score_selected(out_dir: Path, gold: Path, eval_file: Path, instance_ids: list[str]) -> int:
    """Score only the instances of this run: accuracy over them, written to <out>/score.json.

    The official accuracy divides by every task of the eval file; a run over a subset would read as
    a poor score, so the eval file is narrowed to the selected ids first.
    """
    from agent.eval.score_cli import format_report
    from agent.eval.scorer import ScorerInputError, load_eval_file, score_submission

    try:
        entries = load_eval_file(eval_file)
        wanted = [entries[i] for i in instance_ids if i in entries]
        absent = [i for i in instance_ids if i not in entries]
        with tempfile.TemporaryDirectory() as tmp:
            narrowed = Path(tmp) / "eval.jsonl"
            narrowed.write_text("".join(json.dumps(e) + "\n" for e in wanted), encoding="utf-8")
            report = score_submission(out_dir, gold, narrowed)
    except ScorerInputError as exc:
        print(f"smq: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    (out_dir / "score.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
    print()
    print(format_report(report))
    if absent:
        print(f"not in the eval file (not scored): {', '.join(absent)}")
    print(f"per-instance verdicts: {out_dir / 'score.json'}")
    return ExitCode.OK
