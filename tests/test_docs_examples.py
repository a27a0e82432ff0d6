"""Docs that cannot drift (#31): every fenced command and Python example in README.md and docs/*.md runs here,
on the demo, and where the doc shows what it prints, the output is compared.

* A transcript block (`$ command` lines, each followed by what it prints) runs in one bash, the demo's
  `smq` on PATH; the printed lines must be exactly the ones shown.
* A block of bare commands (`smq ...`, `curl ...`) runs each command and needs exit code 0; `curl` goes to one
  `smq serve --open` started for the whole module. A `# {...}` comment under a curl is what it answers: every
  quoted string and number shown (but elided `...` parts and timings) must be in the answer.
* A Python block runs in a fresh interpreter; when the next block is introduced by "prints", its output must
  be exactly that block.
* `<!-- illustrative -->` right before a block skips it (sparingly: a shape, not something that could run);
  synopses (`[--option]`) are not commands. Commands that cannot run in the suite are in NOT_RUN with why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.request import urlopen

import pytest

from tests.conftest import DEMO_MODELS, ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
ILLUSTRATIVE = "<!-- illustrative -->"
SMQ = re.compile(r"^(\.venv/bin/)?smq\s+(\S+)")
# command -> why it does not run in the suite (each is run by tests of its own, or needs what CI has not)
NOT_RUN = {
    "ask": "needs a model provider (an API key); tests/agent runs the loop on a scripted provider",
    "eval": "needs the Spider 2.0 tasks and a model provider (tests/agent/eval runs the harness on fixtures)",
    "mcp": "serves until stopped (tests/service/test_mcp.py talks to it)",
    "serve": "serves until stopped: this module starts one for the curl examples",
    "init": "reads a database file the doc's reader has (tests/smq_authoring runs init)",
    "import": "reads a dbt project the doc's reader has (tests/smq_authoring/dbt runs the import)",
    "keys": "writes keys.yml in the working directory (tests/service/test_auth.py)",
    "test": "runs the model tests of a layer the doc's reader has (tests/smq_authoring/test_modeltests.py)",
}
# databases and files that exist only after a step that is not run (an import or init from the reader's data)
NOT_HERE = {
    "--db chinook": "the layer `smq init` drafts from the reader's Chinook file",
    "--db mf": "the layer `smq import dbt` writes from the reader's dbt project",
    "--db jaffle": "the layer `smq import dbt` writes from dbt Labs' jaffle project (bench/metricflow/jaffle.py)",
    "/databases/jaffle/": "the layer `smq import dbt` writes from dbt Labs' jaffle project (bench/metricflow/jaffle.py)",
    "smq rollups ": "the demo declares no rollups.yml; tests/smq_db/test_rollups_build.py runs these on a copy that does",
    "questions.jsonl": "the reader's own questions file",
    "/ask": "the agent needs a model provider (NOT_RUN['ask'])",
    "agent.eval": "the Spider 2.0 tasks (NOT_RUN['eval'])",
    "--infer": "inferring column names is a model call (a model provider, NOT_RUN['ask'])",
}
NOT_RUN_PREFIXES = ("pip ", "python3 -m venv", "docker ", ".venv/bin/python", "PYTHONPATH=. ", "psql ", "SMQ_AGENT_TOOLS=",
                    "echo \"keys:\"", "cd ", "for ", "done", "f=", "S2=")


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    body: str
    before: str  # the text between the previous block and this one

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks() -> list[Block]:
    out: list[Block] = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        last = 0
        for m in FENCE.finditer(text):
            before = text[last:m.start()]
            last = m.end()
            if before.rstrip().endswith(ILLUSTRATIVE):
                continue
            out.append(Block(path, text[:m.start()].count("\n") + 1, m.group(1), m.group(2), before))
    return out


BLOCKS = _blocks()


def _is_transcript(block: Block) -> bool:
    return any(line.startswith("$ ") for line in block.body.splitlines())


def _commands(block: Block) -> list[str]:
    """The bare commands of a sh/plain block: continuation lines joined, trailing `  # comments` dropped."""
    out: list[str] = []
    pending = ""
    for raw in block.body.splitlines():
        line = pending + raw.strip() if pending else raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if not line or line.startswith("#"):
            continue
        line = _without_comment(line)
        if "[-" in line or re.search(r"\b(NAME|DIR|FILE|URL|SPEC|SMQ|PORT)\b", line):
            continue  # a synopsis
        out.append(line)
    return out


def _without_comment(line: str) -> str:
    """The line without a trailing `# comment` (a `#` after a space, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1].isspace():
            return line[:i].strip()
    return line.strip()


def _runnable(command: str) -> bool:
    if command == "echo $?":  # a transcript's exit code
        return True
    if command.startswith("echo ") and " | " in command:  # `echo '{...}' | smq compile ... -`
        command = command.rsplit(" | ", 1)[1]
    command = command.removeprefix(".venv/bin/")
    if command.startswith(NOT_RUN_PREFIXES) or any(what in command for what in NOT_HERE):
        return False
    m = SMQ.match(command)
    if m:
        return m.group(2) not in NOT_RUN
    return command.startswith("curl ")


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose `smq` is this checkout's, and the folders the docs' examples name."""
    tmp = tmp_path_factory.mktemp("docs")
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "smq").write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m smq_cli.main \"$@\"\n", encoding="utf-8")
    (bin_dir / "smq").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
           "COLUMNS": "120"}
    env.pop("SMQ_MODELS_DIR", None)
    _broken_layer(tmp / "broken")
    _broken_layer(tmp / "docerr" / "e", yaml_error=True)
    _tutorial_layer(tmp / "tutorial")
    return {"env": json.dumps(env), "tmp": str(tmp)}


TUTORIAL_STEP7 = [10**9]  # the line of the tutorial's step 7: its commands after it run on the layer with bookCount


def _tutorial_layer(root: Path) -> None:
    """docs/semantic-layer.md's tutorial, written as its reader writes it: its SQL into data/library.sqlite, its YAML
    blocks into semantic_models/library (each block goes where the tutorial says, by its first line)."""
    import sqlite3

    layer = root / "semantic_models" / "library"
    (layer / "models").mkdir(parents=True)
    (layer / "data").mkdir()
    places = {"name: library": "database.yml", "name: LoansModel": "models/loans.yml", "name: BooksModel": "models/books.yml",
              "joins:": "joins.yml"}
    started = False
    for block in BLOCKS:
        if block.path.name != "semantic-layer.md":
            continue
        if block.lang == "sql" and "CREATE TABLE books" in block.body:
            started = True
            with sqlite3.connect(layer / "data" / "library.sqlite") as conn:
                conn.executescript(block.body)
        if not started:
            continue
        first = block.body.splitlines()[0] if block.body else ""
        if block.lang == "yaml" and first in places and not (layer / places[first]).exists():
            (layer / places[first]).write_text(block.body, encoding="utf-8")
        elif block.lang == "yaml" and block.before.rstrip().endswith("Add to books.yml:"):  # step 7: the next state
            shutil.copytree(root, root.with_name("tutorial7"))
            books = root.with_name("tutorial7") / "semantic_models" / "library" / "models" / "books.yml"
            books.write_text(books.read_text(encoding="utf-8") + block.body, encoding="utf-8")
            TUTORIAL_STEP7[0] = block.line


def _broken_layer(root: Path, yaml_error: bool = False) -> None:
    """The demo layer with the mistakes docs/cli.md shows (an unknown aggregation and an aggregate in `expr`)."""
    shutil.copytree(DEMO_MODELS / "shop", root / "shop", ignore=shutil.ignore_patterns("data"))
    orders = root / "shop" / "models" / "orders.yml"
    text = orders.read_text(encoding="utf-8").replace("agg: count\n", "agg: cnt\n", 1)
    text = text.replace("    agg: min\n    expr: order_date\n", "    agg: min\n    expr: MIN(order_date)\n", 1)
    orders.write_text(text, encoding="utf-8")
    if yaml_error:
        nations = root / "shop" / "models" / "nations.yml"
        nations.write_text(nations.read_text(encoding="utf-8") + "broken: [a, b\n", encoding="utf-8")


def _paths(text: str, shell: dict[str, str]) -> str:
    return text.replace("/tmp/broken", f"{shell['tmp']}/broken").replace("/tmp/docerr", f"{shell['tmp']}/docerr")


def _unpaths(text: str, shell: dict[str, str]) -> str:
    return text.replace(f"{shell['tmp']}/broken", "/tmp/broken").replace(f"{shell['tmp']}/docerr", "/tmp/docerr")


def _bash(script: str, shell: dict[str, str], timeout: float = 120, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=json.loads(shell["env"]), capture_output=True, text=True,
                          timeout=timeout)


def _steps(block: Block) -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it); a command goes on while a quote is open or a line ends in `\\`."""
    steps: list[tuple[str, list[str]]] = []
    open_command = False
    for line in block.body.splitlines():
        if open_command:
            steps[-1] = (steps[-1][0] + "\n" + line, [])
        elif line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
            continue
        else:
            continue
        command = steps[-1][0]
        open_command = command.count("'") % 2 == 1 or command.endswith("\\")
    return steps


TRANSCRIPTS = [b for b in BLOCKS if _is_transcript(b)]


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=[b.where for b in TRANSCRIPTS])
def test_transcript_prints_what_the_doc_shows(block: Block, shell: dict[str, str]) -> None:
    steps = _steps(block)
    if any(not _runnable(cmd.split("&& ")[-1]) for cmd, _ in steps):
        pytest.skip(f"{block.where}: {steps[0][0]} is not run here (NOT_RUN)")
    marker = "@@@smq-doc-step@@@"
    tutorial = block.path.name == "semantic-layer.md"  # the tutorial's commands run in the folder it builds
    folder = "tutorial7" if block.line > TUTORIAL_STEP7[0] else "tutorial"
    cwd = Path(shell["tmp"]) / folder if tutorial else ROOT
    if all(_simple(cmd) for cmd, _ in steps):
        outputs = _in_process([_paths(cmd, shell) for cmd, _ in steps], cwd)
    else:
        script = "".join(f"{_paths(cmd, shell)} 2>&1; __rc=$?; echo {marker}; (exit $__rc)\n" for cmd, _ in steps)
        outputs = _bash(script, shell, cwd=cwd).stdout.split(marker + "\n")
    for (cmd, shown), got in zip(steps, outputs):
        lines = [line.rstrip() for line in _unpaths(got, shell).rstrip("\n").splitlines()]
        while shown and not shown[-1]:
            shown.pop()
        if os.environ.get("SMQ_UPDATE_DOCS") and not _matches(lines, shown) and "..." not in [x.strip() for x in shown]:
            _update(block, shown, lines)  # a maintainer's tool: rewrite the shown output, then read the diff
            continue
        assert _matches(lines, shown), f"{block.where}: `{cmd}` prints\n" + "\n".join(lines)


def _update(block: Block, shown: list[str], lines: list[str]) -> None:
    text = block.path.read_text(encoding="utf-8")
    new_body = block.body.replace("\n".join(shown) + "\n", "\n".join(lines) + "\n", 1) if shown else block.body
    if text.count(block.body) == 1:
        block.path.write_text(text.replace(block.body, new_body), encoding="utf-8")


def _simple(command: str) -> bool:
    """An `smq ...` command without shell syntax (run in this process: no interpreter to start), or `echo $?`."""
    return command == "echo $?" or (command.startswith("smq ") and not re.search(r"[|&;<>`]|\$\(", command)
                                    and "\n" not in command)


def _in_process(commands: list[str], cwd: Path) -> list[str]:
    """Each command's output (stdout and stderr as one stream, in order), run by `smq_cli.main.main` in `cwd`."""
    import contextlib
    import io
    import shlex

    from smq_cli.main import main

    outputs: list[str] = []
    code = 0
    here = os.getcwd()
    saved = {k: os.environ.get(k) for k in ("COLUMNS", "SMQ_MODELS_DIR")}
    os.environ["COLUMNS"] = "120"
    os.environ.pop("SMQ_MODELS_DIR", None)
    try:
        os.chdir(cwd)
        for command in commands:
            if command == "echo $?":
                outputs.append(f"{code}\n")
                continue
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                try:
                    code = main(shlex.split(command)[1:])
                except SystemExit as exc:  # argparse
                    code = int(exc.code or 0)
            outputs.append(buffer.getvalue())
    finally:
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return outputs


def _matches(lines: list[str], shown: list[str]) -> bool:
    """The lines as shown; a shown line that is just `...` stands for any lines (an elided middle)."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n" for line in shown)
    return re.fullmatch(pattern, "".join(line + "\n" for line in lines)) is not None


COMMAND_BLOCKS = [b for b in BLOCKS if b.lang in ("sh", "bash", "") and not _is_transcript(b)
                  and any(_runnable(c) for c in _commands(b))]


@pytest.fixture(scope="module")
def service(shell: dict[str, str]) -> str:
    """One `smq serve --open` on the demo for every curl example; its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "smq_cli.main", "serve", "--open", "--port", str(port)], cwd=ROOT,
                            env=json.loads(shell["env"]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urlopen(f"{base}/v1/ready", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"smq serve stopped: {proc.stderr.read() if proc.stderr else ''}") from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _shown_answer(block: Block, command_index: int) -> str:
    """The `# ...` lines right under the command_index-th command of a block: the answer the doc shows."""
    shown: list[str] = []
    seen = -1
    pending = False
    for raw in block.body.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            if seen == command_index and not pending:
                shown.append(line.lstrip("#").strip())
            continue
        if not line:
            continue
        if not pending:
            seen += 1
        pending = line.endswith("\\")
    return " ".join(shown)


def _tokens(shown: str) -> list[str]:
    """The quoted strings and numbers the doc shows an answer to hold (elided parts and timings left out)."""
    shown = re.sub(r'"elapsed_ms":\s*[\d.]+', "", shown)
    return [t for t in re.findall(r'"(?:[^"\\]|\\.)*"|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])', shown) if "..." not in t]


@pytest.mark.parametrize("block", COMMAND_BLOCKS, ids=[b.where for b in COMMAND_BLOCKS])
def test_commands_run(block: Block, shell: dict[str, str], request: pytest.FixtureRequest) -> None:
    commands = _commands(block)
    for i, command in enumerate(commands):
        if not _runnable(command):
            continue
        if command.startswith("curl "):
            base = request.getfixturevalue("service")
            command = command.replace("http://127.0.0.1:8000", base) + " -sS -w '\\n%{http_code}'"
        command = _paths(command.replace(".venv/bin/smq", "smq"), shell)
        if _simple(command):
            done = subprocess.CompletedProcess(command, 0, "", "")
            output = _in_process([command, "echo $?"], ROOT)
            assert output[1] == "0\n", f"{block.where}: `{command}` exited {output[1].strip()}: {output[0][-2000:]}"
            continue
        done = _bash(command, shell)
        assert done.returncode == 0, f"{block.where}: `{command}` exited {done.returncode}: {done.stderr[-2000:]}"
        if not command.startswith("curl "):
            continue
        body, _, status = done.stdout.rpartition("\n")
        assert status.isdigit() and int(status) < 400, f"{block.where}: `{command}` answered {status}: {body[:2000]}"
        for token in _tokens(_shown_answer(block, i)):
            assert token in body or token.strip('"') in body, f"{block.where}: the shown {token} is not in the answer: {body[:3000]}"


def _python_blocks() -> list[tuple[Block, Block | None]]:
    out = []
    for i, block in enumerate(BLOCKS):
        if block.lang != "python" or not re.search(r"^(from|import) (engine|agent|smq_db)\b", block.body, re.M):
            continue
        following = BLOCKS[i + 1] if i + 1 < len(BLOCKS) and BLOCKS[i + 1].path == block.path else None
        shown = following if following is not None and following.before.strip().rstrip(":").endswith("prints") else None
        out.append((block, shown))
    return out


PYTHON = _python_blocks()


@pytest.mark.parametrize(("block", "shown"), PYTHON, ids=[b.where for b, _ in PYTHON])
def test_python_example_runs_and_prints_what_the_doc_shows(block: Block, shown: Block | None, shell: dict[str, str]) -> None:
    env = json.loads(shell["env"])
    if re.search(r"\b(layer|executor)\b", block.body) and "load_layers" not in block.body:
        prelude = ("from engine import load_layers\nfrom smq_db.open import open_for_layer\nlayer = load_layers('semantic_models')['shop']\n"
                   "executor = open_for_layer(layer)\n")
    else:
        prelude = ""
    if "make_provider" in block.body or any(what in block.body for what in NOT_HERE):
        pytest.skip(f"{block.where}: needs a model provider or data the suite has not (NOT_RUN, NOT_HERE)")
    done = subprocess.run([sys.executable, "-c", prelude + _paths(block.body, shell)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"{block.where}: {done.stderr[-3000:]}"
    if shown is not None and os.environ.get("SMQ_UPDATE_DOCS"):
        text = shown.path.read_text(encoding="utf-8")
        if text.count(shown.body) == 1:
            shown.path.write_text(text.replace(shown.body, _unpaths(done.stdout, shell).rstrip("\n") + "\n"), encoding="utf-8")
        return
    if shown is not None:
        assert _unpaths(done.stdout, shell).rstrip("\n").splitlines() == shown.body.rstrip("\n").splitlines(), \
            f"{block.where} prints\n{_unpaths(done.stdout, shell)}"


def _smq_blocks() -> list[Block]:
    """The SMQs docs/smq.md shows as JSON objects: each is a query on the demo."""
    out = []
    for block in BLOCKS:
        if block.path.name == "smq.md" and block.lang == "json":
            try:
                smq = json.loads(block.body)
            except json.JSONDecodeError:
                continue
            if isinstance(smq, dict) and ("metrics" in smq or "group_by" in smq):
                out.append(block)
    return out


SMQS = _smq_blocks()


@pytest.mark.parametrize("block", SMQS, ids=[b.where for b in SMQS])
def test_smq_examples_compile_on_the_demo(block: Block) -> None:
    from engine import load_layers

    load_layers(DEMO_MODELS)["shop"].compile(json.loads(block.body))
