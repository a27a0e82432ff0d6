"""MetricFlow's names on MetricFlow's own simple_manifest, imported: queries written as a MetricFlow user
writes them (metric_time, entity__dimension, multi-hop paths, bare entities, date parts, where-filter
templates), each compared with SQL written by hand over the same DuckDB tables."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest
import yaml

from engine import QueryError, load_layers

from .mf_data import MF
from .test_import import answer, close, imported, mf_db, shop_db, truth  # noqa: F401 - fixtures

pytestmark = pytest.mark.shared_data(MF / "simple_manifest", MF / "simple_model_data")  # ../shared: skipped without it, failed in CI

CASES = [
    # two fact models on one time axis (each on its own ds), grouped through the listing entity's join
    ({"metrics": ["bookings", "views"], "group_by": ["metric_time__month", "listing__country_latest"]},
     "SELECT m, c, MAX(b), MAX(v) FROM ("
     " SELECT DATE_TRUNC('month', b.ds)::DATE AS m, l.country AS c, COUNT(*) AS b, NULL AS v"
     " FROM fct_bookings b LEFT JOIN dim_listings_latest l USING (listing_id) GROUP BY 1, 2"
     " UNION ALL SELECT DATE_TRUNC('month', v.ds)::DATE, l.country, NULL, COUNT(*)"
     " FROM fct_views v LEFT JOIN dim_listings_latest l USING (listing_id) GROUP BY 1, 2) t GROUP BY 1, 2"),
    # a bare entity (the booking's listing key) and a Dimension template in a query filter
    ({"metrics": ["bookings"], "group_by": ["listing"], "filters": ["{{ Dimension('listing__is_lux_latest') }}"]},
     "SELECT b.listing_id, COUNT(*) FROM fct_bookings b JOIN dim_listings_latest l USING (listing_id) WHERE l.is_lux GROUP BY 1"),
    # multi-hop: booking -> listing -> user
    ({"metrics": ["bookings"], "group_by": ["listing__user__home_state_latest"]},
     "SELECT u.home_state_latest, COUNT(*) FROM fct_bookings b LEFT JOIN dim_listings_latest l USING (listing_id)"
     " LEFT JOIN dim_users_latest u ON l.user_id = u.user_id GROUP BY 1"),
    # a date part of the primary entity's time dimension, filtered with a TimeDimension template
    ({"metrics": ["bookings"], "group_by": ["booking__ds__extract_dow"],
      "filters": ["{{ TimeDimension('metric_time', 'month') }} = '2019-12-01'"]},
     "SELECT ISODOW(ds), COUNT(*) FROM fct_bookings WHERE DATE_TRUNC('month', ds) = DATE '2019-12-01' GROUP BY 1"),
    # a measure on its own agg_time_dimension (booking_payments on paid_at) beside one on ds
    ({"metrics": ["bookings", "booking_payments"], "group_by": ["metric_time"], "filters": ["metric_time < '2020-01-02'"]},
     "SELECT d, MAX(b), MAX(p) FROM (SELECT ds::DATE AS d, COUNT(*) AS b, NULL AS p FROM fct_bookings WHERE ds < DATE '2020-01-02' GROUP BY 1"
     " UNION ALL SELECT paid_at::DATE, NULL, SUM(booking_value) FROM fct_bookings WHERE paid_at < DATE '2020-01-02' GROUP BY 1) t GROUP BY 1"),
    # native and MetricFlow names mixed; order and limit on MetricFlow names
    ({"metrics": ["bookings"], "group_by": ["booking__is_instant", "listings_latest__country_latest"],
      "order_by": ["-bookings", "booking__is_instant"], "limit": 3},
     "SELECT b.is_instant, l.country, COUNT(*) FROM fct_bookings b LEFT JOIN dim_listings_latest l USING (listing_id)"
     " GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 3"),
    # the listings model's own entity: local, by the year of its default time dimension (created_at)
    ({"metrics": ["listings"], "group_by": ["listing__country_latest", "metric_time__year"]},
     "SELECT country, DATE_TRUNC('year', created_at)::DATE, COUNT(*) FROM dim_listings_latest GROUP BY 1, 2"),
    # dimensions only: the distinct combinations, across models through the entities' joins; the import's
    # `semantics: metricflow` joins them FULL OUTER, as MetricFlow (users without listings too)
    ({"group_by": ["listing__country_latest", "listing__user__home_state_latest"]},
     "SELECT DISTINCT l.country, u.home_state_latest FROM dim_listings_latest l FULL OUTER JOIN dim_users_latest u ON l.user_id = u.user_id"),
    # an Entity template
    ({"metrics": ["bookings"], "filters": ["{{ Entity('listing') }} IS NULL"]},
     "SELECT SUM(1) FROM fct_bookings WHERE listing_id IS NULL"),
    # a Metric template: listings with more than two bookings, by country (the metric grouped by listing, joined, filtered)
    ({"metrics": ["listings"], "group_by": ["listing__country_latest"], "filters": ["{{ Metric('bookings', group_by=['listing']) }} > 2"]},
     "SELECT l.country, COUNT(*) FROM dim_listings_latest l JOIN (SELECT listing_id, COUNT(*) AS n FROM fct_bookings GROUP BY 1) b"
     " USING (listing_id) WHERE b.n > 2 GROUP BY 1"),
    # a derived metric over two fact models by a native entity key: each input by its own model's key (as `listing`)
    ({"metrics": ["views_times_booking_value"], "group_by": ["bookings_source__listing"]},
     "SELECT COALESCE(b.k, v.k), b.s * v.n FROM (SELECT listing_id AS k, SUM(booking_value) AS s FROM fct_bookings GROUP BY 1) b"
     " FULL JOIN (SELECT listing_id AS k, COUNT(*) AS n FROM fct_views GROUP BY 1) v ON b.k IS NOT DISTINCT FROM v.k"),
]


@pytest.mark.parametrize("smq,sql", CASES, ids=[", ".join(c[0].get("metrics", []) + c[0].get("group_by", c[0].get("filters", []))) for c in CASES])
def test_metricflow_names_answer_like_hand_written_sql(imported: Path, mf_db: Path, smq: dict, sql: str) -> None:  # noqa: F811
    got, want = answer(imported, mf_db, smq), truth(mf_db, sql)
    assert close(got, want), (got, want)


def test_output_columns_are_named_as_written(imported: Path) -> None:  # noqa: F811
    sql = load_layers(imported)["mf"].compile({"metrics": ["bookings"], "group_by": ["metric_time__month", "listing__country_latest"]})
    assert '"metric_time__month"' in sql and '"listing__country_latest"' in sql


@pytest.mark.parametrize("smq,field,message,suggestion", [
    ({"metrics": ["bookings"], "group_by": ["listing__countr_latest"]}, "group_by[0]", "unknown element", "listing__country_latest"),
    ({"metrics": ["bookings"], "group_by": ["listng__country_latest"]}, "group_by[0]", "unknown", "listing__country_latest"),
    ({"metrics": ["bookings"], "group_by": ["listing__country_latest__month"]}, "group_by[0]", "needs a date or timestamp", None),
    ({"metrics": ["bookings"], "group_by": ["booking__ds__extract_week"]}, "group_by[0]", "unknown date part", None),
    ({"metrics": ["listings"], "filters": ["{{ Metric('bookngs', group_by=['listing']) }} > 2"]}, "filters[0]",
     "unknown element 'bookngs'", "bookings"),
    ({"metrics": ["listings"], "filters": ["{{ Metric('bookings', group_by=['listng']) }} > 2"]}, "filters[0]",
     "unknown element 'listng'", "listing"),
    ({"metrics": ["listings"], "filters": ["{{ Metric('bookings') }} > 2"]}, "filters[0]", "needs group_by", None),
])
def test_wrong_metricflow_names_get_the_nearest_valid_one(imported: Path, smq: dict, field: str, message: str,  # noqa: F811
                                                          suggestion: str | None) -> None:
    with pytest.raises(QueryError) as info:
        load_layers(imported)["mf"].compile(smq)
    err = info.value
    assert err.location.field == field and message in err.message
    if suggestion:
        assert suggestion in err.suggestions


def test_elements_show_the_metricflow_name(imported: Path) -> None:  # noqa: F811
    layer = load_layers(imported)["mf"]
    dims = {d["name"]: d for m in layer.elements(["bookings_source", "listings_latest"])["models"] for d in m["dimensions"]}
    assert dims["bookings_source__is_instant"]["mf_name"] == "booking__is_instant"
    assert dims["listings_latest__country_latest"]["mf_name"] == "listing__country_latest"
    assert dims["bookings_source__listing"]["mf_name"] == "listing"
    # and every MetricFlow name shown compiles
    for d in dims.values():
        layer.compile({"metrics": ["bookings"] if d["name"].startswith("bookings") else ["listings"], "group_by": [d["mf_name"]]})


def test_metric_time_in_a_metric_filter_and_a_default_grain_are_imported(tmp_path: Path, shop_db: Path) -> None:  # noqa: F811
    from smq_authoring.dbt import import_dbt

    from .test_import import DBT_SCHEMA

    folder = tmp_path / "yaml"
    folder.mkdir()
    (folder / "schema.yml").write_text(DBT_SCHEMA.replace("metrics:\n", """metrics:
  - name: early_revenue
    type: simple
    type_params: {measure: order_total}
    filter: "{{ TimeDimension('metric_time', 'day') }} <= '2024-01-02'"
    time_granularity: month
""", 1), encoding="utf-8")
    result = import_dbt(folder, "shop_mf", tmp_path / "models" / "shop_mf", partial=True)
    orders = yaml.safe_load((tmp_path / "models" / "shop_mf" / "models" / "orders.yml").read_text(encoding="utf-8"))
    early = next(m for m in orders["metrics"] if m["name"] == "early_revenue")
    assert early["filters"] == ["metric_time__day <= '2024-01-02'"] and early["time_grain"] == "month"
    assert result.layer is not None
    config_path = tmp_path / "models" / "shop_mf" / "database.yml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["connection"] = {"backend": "duckdb", "path": str(shop_db)}
    config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    layer = load_layers(tmp_path / "models")["shop_mf"]
    with duckdb.connect(str(shop_db), read_only=True) as conn:
        rows = conn.execute(layer.compile({"metrics": ["early_revenue"], "group_by": ["metric_time", "customer__country"],
                                           "order_by": ["customer__country"]})).fetchall()
    assert rows == [(dt.date(2024, 1, 1), "DE", 12.0), (dt.date(2024, 1, 1), "FR", 11.0)]
