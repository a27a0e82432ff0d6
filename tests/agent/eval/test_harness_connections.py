"""Which database an instance runs on: connection files, flags, the layer's own connection."""

from __future__ import annotations

import json

import pytest

from agent.eval.connections import Connections, read_connection_file
from agent.eval.layers import LayerStore
from agent.eval.tasks import EvalInputError, Task
from tests.agent.eval.fixtures import MODELS

SF_TASK = Task("sf_bq011", "GA4", "How many?")
BQ_TASK = Task("bq011", "ga4", "How many?")
LOCAL_TASK = Task("local054", "chinook", "Who?")


def test_snowflake_file_bare_or_as_a_connection_block(tmp_path):
    bare = tmp_path / "sf.yml"
    bare.write_text("account: xy123\nuser: eval\npassword: ${SNOWFLAKE_PASSWORD}\nwarehouse: COMPUTE_WH\n")
    block = tmp_path / "database.yml"
    block.write_text("name: x\nconnection:\n  backend: snowflake\n  account: xy123\n  user: eval\n")
    as_json = tmp_path / "snowflake_credential.json"  # Spider 2.0's own credential file is JSON: YAML reads it
    as_json.write_text('{"user": "eval", "password": "p", "account": "xy123"}')
    for path in (bare, block, as_json):
        settings = read_connection_file(path, "snowflake")
        assert settings["backend"] == "snowflake" and settings["account"] == "xy123"
    target = Connections(snowflake=read_connection_file(bare, "snowflake")).target(SF_TASK, "snowflake", None)
    assert target.connection["database"] == "GA4"  # the task's database is the session's
    assert target.connection["password"] == "${SNOWFLAKE_PASSWORD}"  # expanded by the executor factory, not stored
    assert target.base_dir == tmp_path.resolve() and target.dialect == "snowflake"
    assert "_base_dir" not in target.connection


def test_a_database_named_in_the_file_wins(tmp_path):
    path = tmp_path / "sf.yml"
    path.write_text("account: a\ndatabase: SPIDER2\n")
    target = Connections(snowflake=read_connection_file(path, "snowflake")).target(SF_TASK, "snowflake", None)
    assert target.connection["database"] == "SPIDER2"


@pytest.mark.parametrize("text, message", [
    ("- a\n- b\n", "must hold a mapping"),
    ("backend: bigquery\nproject: p\n", "names backend 'bigquery' but is given as the snowflake connection"),
    ("a: [\n", "cannot read the snowflake connection file"),
])
def test_bad_connection_files(tmp_path, text, message):
    path = tmp_path / "sf.yml"
    path.write_text(text)
    with pytest.raises(EvalInputError, match="sf.yml: ") as err:
        read_connection_file(path, "snowflake")
    assert message in err.value.message


def test_missing_connection_file(tmp_path):
    with pytest.raises(EvalInputError, match="snowflake connection file not found"):
        read_connection_file(tmp_path / "nope.yml", "snowflake")


def test_bigquery_from_flags_or_application_default_credentials(monkeypatch):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    assert not Connections().configured("bigquery", None)
    with pytest.raises(EvalInputError, match="no bigquery connection for bq011: pass --bigquery-connection"):
        Connections().target(BQ_TASK, "bigquery", None)
    target = Connections(bigquery={"backend": "bigquery", "project": "my-billing"}).target(BQ_TASK, "bigquery", None)
    assert target.connection == {"backend": "bigquery", "project": "my-billing"} and target.dialect == "bigquery"
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/keys/sa.json")
    assert Connections().configured("bigquery", None)
    assert Connections().target(BQ_TASK, "bigquery", None).connection == {"backend": "bigquery"}


def test_sqlite_dir_first_then_the_layers_own_connection(tmp_path):
    layer = LayerStore(MODELS).get("chinook")
    (tmp_path / "chinook.sqlite").write_bytes(b"")
    target = Connections(sqlite_dir=tmp_path).target(LOCAL_TASK, "sqlite", layer)
    assert target.connection["path"] == str((tmp_path / "chinook.sqlite").resolve())
    fallback = Connections().target(LOCAL_TASK, "sqlite", layer)
    assert fallback.connection == {"backend": "sqlite", "path": "chinook.sqlite"}
    assert fallback.base_dir == MODELS / "chinook" and fallback.dialect == "sqlite"
    assert not Connections().configured("snowflake", layer)  # a layer names only its own backend


def test_layer_store_matches_folders_case_insensitively(tmp_path):
    store = LayerStore(MODELS)
    assert store.get("CHINOOK").name == "chinook"  # Spider 2.0-snow spells databases in capitals
    with pytest.raises(EvalInputError, match="no semantic layer for database 'sakila': expected the folder"):
        store.get("sakila")
    assert store.find("sakila") is None and LayerStore(None).find("chinook") is None
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "database.yml").write_text("name: broken\ndialect: nosuchdialect\n")
    assert LayerStore(tmp_path).find("broken") is None


@pytest.mark.filterwarnings("ignore:Arrow output on a DB-API result")  # fakesnow's own
def test_snowflake_instance_runs_through_a_connection_file(tmp_path, monkeypatch):
    """An sf* instance, routed to Snowflake (the fakesnow emulator), its session database the task's."""
    fakesnow = pytest.importorskip("fakesnow")
    import snowflake.connector

    from agent.eval.harness import EvalSpec, run_eval
    from agent.eval.scorer import read_result_csv

    patch = fakesnow.patch()
    try:
        patch.__enter__()
        patched = True
    except AssertionError:  # already patched by another test module of this session: share it
        patched = False
    try:
        setup = snowflake.connector.connect(database="EVAL_GA4", schema="PUBLIC")
        setup.cursor().execute("CREATE OR REPLACE TABLE EVAL_GA4.PUBLIC.EVENTS (user_id INTEGER, seconds INTEGER)")
        setup.cursor().execute("INSERT INTO EVAL_GA4.PUBLIC.EVENTS VALUES (1, 10), (2, 0), (3, 25)")
        tasks = tmp_path / "snow.jsonl"
        tasks.write_text(json.dumps({"instance_id": "sf_bq011", "db_id": "EVAL_GA4", "instruction": "Engaged users?",
                                     "external_knowledge": None}) + "\n")
        oracle = tmp_path / "oracle"
        oracle.mkdir()
        (oracle / "sf_bq011.sql").write_text("SELECT COUNT(DISTINCT user_id) AS users FROM PUBLIC.EVENTS WHERE seconds > 0")
        conn_file = tmp_path / "snowflake.yml"
        conn_file.write_text("account: fake\nuser: eval\npassword: ${SMQ_TEST_SF_PASSWORD}\nschema: PUBLIC\n")
        monkeypatch.setenv("SMQ_TEST_SF_PASSWORD", "secret")  # ${...} is expanded when the connection opens
        summary = run_eval(EvalSpec(tasks_file=tasks, select="sf*", out_dir=tmp_path / "out", oracle_sql_dir=oracle,
                                    snowflake_connection=read_connection_file(conn_file, "snowflake")))
        (record,) = summary.records
        assert (record.status, record.backend, record.db) == ("answered", "snowflake", "EVAL_GA4"), record.error
        assert read_result_csv(tmp_path / "out" / "sf_bq011.csv").values.tolist() == [[2]]
    finally:
        if patched:
            patch.__exit__(None, None, None)


def test_the_layers_own_demo_database_is_built_on_first_use(tmp_path):
    """A fresh clone has no demo file: the eval opens the layer's database as the service does (open_for_layer)."""
    import shutil

    from engine import load_layer
    from tests.conftest import DEMO_MODELS

    folder = tmp_path / "shop"
    shutil.copytree(DEMO_MODELS / "shop", folder, ignore=shutil.ignore_patterns("data"))
    layer = load_layer(folder)
    connections = Connections()
    target = connections.target(Task("local_shop", "shop", "How many orders?"), "duckdb", layer)
    try:
        assert connections.executor(target).execute("SELECT COUNT(*) FROM orders").rows[0][0] > 0
    finally:
        connections.close()
    assert (folder / "data" / "shop.duckdb").is_file()
