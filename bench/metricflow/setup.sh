#!/usr/bin/env bash
# MetricFlow in its own virtualenv (.bench-venvs/metricflow), then the DuckDB file and the dbt project
# (.bench-venvs/metricflow-project) built from MetricFlow's simple_manifest and its table snapshots,
# then `dbt parse` (writes target/semantic_manifest.json). Times each step into setup_times.json.
# `setup.sh shop`: our own shop project (shop_project/ over the demo database) in .bench-venvs/shop-project.
# `setup.sh jaffle-shop` / `setup.sh jaffle-sl`: dbt Labs' public example projects (bench/metricflow/jaffle.py).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="$ROOT/.bench-venvs/metricflow"
KIND="${1:-mf}"
case "$KIND" in
  shop) PROJECT="$ROOT/.bench-venvs/shop-project" ;;
  jaffle-shop|jaffle-sl) PROJECT="$ROOT/.bench-venvs/$KIND-project" ;;
  *) PROJECT="$ROOT/.bench-venvs/metricflow-project" ;;
esac
PY="${SMQ_PYTHON:-$ROOT/.venv/bin/python}"
cd "$ROOT"
t0=$(date +%s)
install=null  # null: the venv was already there
if [ ! -x "$VENV/bin/mf" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r bench/metricflow/requirements.txt
  install=$(( $(date +%s) - t0 ))
fi
t1=$(date +%s)
if [ "${KIND#jaffle}" != "$KIND" ]; then
  # dbt Labs' example project: copied (JAFFLE_SHOP_SRC / JAFFLE_SL_SRC, else cloned into .bench-venvs/cache),
  # jafgen data seeded, dbt run and dbt parse (bench/metricflow/jaffle.py)
  "$PY" -m bench.metricflow.jaffle "$PROJECT" "$KIND"
  t2=$(date +%s); t3=$t2
else
  "$PY" -m bench.metricflow.build_project "$PROJECT" "$KIND"
  t2=$(date +%s)
  (cd "$PROJECT" && "$VENV/bin/dbt" parse --profiles-dir . --quiet)
  t3=$(date +%s)
fi
printf '{"install_s": %s, "build_s": %d, "dbt_parse_s": %d}\n' "$install" $((t2-t1)) $((t3-t2)) > "$PROJECT/setup_times.json"
cat "$PROJECT/setup_times.json"
