"""Grains below a day: what the engine refuses, and why (the numbers on every engine: cases.d/sub_daily.yml and
cases_metric_time.yml's metric_time_hour_on_a_timestamp)."""

from __future__ import annotations

import pytest

from engine import load_layers
from engine.errors import QueryError

from ..conftest import DEMO_MODELS


@pytest.fixture(scope="module")
def shop():
    return load_layers(DEMO_MODELS)["shop"]


def refusal(layer, smq: dict) -> QueryError:
    with pytest.raises(QueryError) as err:
        layer.compile(smq)
    return err.value


def test_a_date_has_no_hour(shop) -> None:
    err = refusal(shop, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__hour"]})
    assert err.code == "invalid_grain" and "needs a timestamp dimension" in err.message
    assert list(err.suggestions) == ["OrdersModel__orderDate__day"]


def test_unknown_grain_lists_the_sub_daily_ones(shop) -> None:
    err = refusal(shop, {"metrics": ["PaymentsModel__paymentCount"], "group_by": ["PaymentsModel__paidAt__hours"]})
    assert err.code == "unknown_grain" and "second, minute, hour, day" in err.message
    assert list(err.suggestions) == ["PaymentsModel__paidAt__hour"]


def test_the_daily_spine_is_not_read_below_a_day(tmp_path) -> None:
    from .test_engines import shop_with_extra_metrics

    err = refusal(shop_with_extra_metrics(tmp_path), {"metrics": ["averagePaymentYearToDate"], "group_by": ["PaymentsModel__paidAt__hour"]})
    assert err.code == "unsupported_grain" and "cumulative metric" in err.message and err.location.field == "group_by[0]"


def test_sub_daily_compiles_on_every_dialect(shop) -> None:
    from engine import SUPPORTED_DIALECTS

    for dialect in SUPPORTED_DIALECTS:
        sql = shop.compile({"metrics": ["PaymentsModel__paymentCount"], "group_by": ["PaymentsModel__paidAt__minute"]}, dialect=dialect)
        assert "paid_at" in sql
