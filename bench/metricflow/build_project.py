"""A minimal dbt project over one DuckDB file, for `dbt parse` and `mf query`: MetricFlow's simple_manifest
(`mf`, the default) or our own shop project (`shop`, `shop_project/` over the demo database).

MetricFlow's test YAML is its internal format (one `semantic_model:` / `metric:` / `saved_query:` per
document, tables named by `node_relation`); dbt wants lists under `semantic_models:` etc., each semantic
model on a dbt model (`model: ref('x')`). So every table gets a stub dbt model (never run: the tables are
already in the DuckDB file, schema `main`, under the names the stubs resolve to) and the day time spine a
`time_spine:` model config. `$source_schema` becomes `main`.

The shop project is already dbt YAML (written by hand); its tables come from `smq_db.demo`, plus
`order_lines` (order_items with the order's date, since MetricFlow wants a time dimension on every model
with measures). Both projects get the same profile, database file name and `yaml/` folder layout.

Usage: python -m bench.metricflow.build_project OUT_DIR [mf|shop]   (from the repository root)
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import duckdb
import yaml

from smq_db.demo.build import build_duckdb
from tests.smq_authoring.dbt.mf_data import MF, build_mf_duckdb

SHOP = Path(__file__).resolve().parent / "shop_project"

DB_NAME = "mf"  # dbt-duckdb names the database after the file stem: relations are mf.main.<table>


def _documents(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8").replace("$source_schema", "main")
    return [d for d in yaml.safe_load_all(text) if d]


def _write_profile(out: Path, database: Path) -> None:
    (out / "profiles.yml").write_text(yaml.safe_dump({"mf_bench": {"target": "dev", "outputs": {"dev": {
        "type": "duckdb", "path": str(database), "schema": "main", "threads": 1}}}}, sort_keys=False))


def build_shop_project(out: Path) -> Path:
    """Write OUT/{mf.duckdb, dbt_project.yml, profiles.yml, models/, yaml/} from shop_project/; return OUT."""
    out.mkdir(parents=True, exist_ok=True)
    models = out / "models"
    shutil.rmtree(models, ignore_errors=True)
    shutil.copytree(SHOP / "models", models)
    shutil.copy(SHOP / "dbt_project.yml", out / "dbt_project.yml")
    database = out / f"{DB_NAME}.duckdb"
    database.unlink(missing_ok=True)
    build_duckdb(database)
    with duckdb.connect(str(database)) as conn:  # a table, not a view: dbt-duckdb attaches the file as `mf`
        conn.execute("CREATE TABLE order_lines AS SELECT i.*, o.order_date FROM order_items AS i "
                     "JOIN orders AS o ON o.order_id = i.order_id")
    refs = set(re.findall(r"ref\('([^']+)'\)", (models / "semantic_models.yml").read_text(encoding="utf-8")))
    for table in sorted(refs | {"time_spine"}):
        (models / f"{table}.sql").write_text(f"-- stub: the table is loaded into {DB_NAME}.main.{table}\nselect 1 as x\n")
    _write_profile(out, database)
    plain = out / "yaml"  # the same YAML without the stubs, for `smq import dbt --from <folder>`
    shutil.rmtree(plain, ignore_errors=True)
    plain.mkdir()
    for file in sorted((SHOP / "models").glob("*.yml")):
        shutil.copy(file, plain / file.name)
    return out


def build_project(out: Path) -> Path:
    """Write OUT/{mf.duckdb, dbt_project.yml, profiles.yml, models/, yaml/}; return OUT."""
    out.mkdir(parents=True, exist_ok=True)
    models = out / "models"
    models.mkdir(exist_ok=True)
    database = out / f"{DB_NAME}.duckdb"
    database.unlink(missing_ok=True)
    build_mf_duckdb(database)

    semantic_models, metrics, saved_queries = [], [], []
    source = MF / "simple_manifest"
    for file in sorted(source.rglob("*.yaml")):
        if file.name == "project_configuration.yaml":
            continue
        for doc in _documents(file):
            if "semantic_model" in doc:
                model = dict(doc["semantic_model"])
                alias = model.pop("node_relation")["alias"]
                model["model"] = f"ref('{alias}')"
                semantic_models.append(model)
                (models / f"{alias}.sql").write_text(f"-- stub: the table is loaded into {DB_NAME}.main.{alias}\nselect 1 as x\n")
            elif "metric" in doc:
                metric = dict(doc["metric"])
                metric.setdefault("label", metric["name"])  # dbt requires a label, MetricFlow does not
                metrics.append(metric)
            elif "saved_query" in doc:
                saved_queries.append(doc["saved_query"])

    (models / "mf_time_spine.sql").write_text("-- stub: the day time spine is loaded into mf.main.mf_time_spine\nselect 1 as ds\n")
    spine = {"models": [{"name": "mf_time_spine", "time_spine": {
        "standard_granularity_column": "ds", "custom_granularities": [{"name": "alien_day"}]},  # used by a metric window
        "columns": [{"name": "ds", "granularity": "day"}, {"name": "alien_day"}]}]}
    (models / "time_spine.yml").write_text(yaml.safe_dump(spine, sort_keys=False))
    (models / "semantic_models.yml").write_text(yaml.safe_dump({"semantic_models": semantic_models}, sort_keys=False))
    (models / "metrics.yml").write_text(yaml.safe_dump({"metrics": metrics}, sort_keys=False))
    (models / "saved_queries.yml").write_text(yaml.safe_dump({"saved_queries": saved_queries}, sort_keys=False))

    (out / "dbt_project.yml").write_text(yaml.safe_dump({
        "name": "mf_simple_manifest", "version": "1.0.0", "config-version": 2, "profile": "mf_bench",
        "model-paths": ["models"], "models": {"mf_simple_manifest": {"+materialized": "view"}},
    }, sort_keys=False))
    _write_profile(out, database)

    # The same YAML as a plain MetricFlow folder (internal format), for `smq import dbt --from <folder>`.
    plain = out / "yaml"
    plain.mkdir(exist_ok=True)
    for file in sorted(source.rglob("*.yaml")):
        target = plain / file.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.read_text(encoding="utf-8").replace("$source_schema", "main"), encoding="utf-8")
    return out


if __name__ == "__main__":
    kind = sys.argv[2] if len(sys.argv) > 2 else "mf"
    print((build_shop_project if kind == "shop" else build_project)(Path(sys.argv[1]).resolve()))
