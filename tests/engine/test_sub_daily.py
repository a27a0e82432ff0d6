"""Grains below a day: what the engine refuses, and why (the numbers on every engine: cases.d/sub_daily.yml, with
windows, offsets and gap filling by the hour and minute, and cases_metric_time.yml's metric_time_hour_on_a_timestamp)."""

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


def test_below_a_day_the_spine_is_read_at_that_grain(tmp_path) -> None:
    """A cumulative metric by the hour reads the spine's days crossed with their 24 hours (cases.d/sub_daily.yml has
    the numbers); by the second, 86,400 a day."""
    from .test_engines import shop_with_extra_metrics

    layer = shop_with_extra_metrics(tmp_path)
    hourly = layer.compile({"metrics": ["averagePaymentYearToDate"], "group_by": ["PaymentsModel__paidAt__hour"]})
    assert "< 24" in hourly and "INTERVAL" in hourly
    by_second = layer.compile({"metrics": ["paymentsLast3Hours"], "group_by": ["PaymentsModel__paidAt__second"]})
    assert "< 86400" in by_second


def test_a_custom_granularity_is_not_read_below_a_day(tmp_path) -> None:
    """The generated hour spine has no custom columns: a cumulative metric by hour and fiscal quarter is refused,
    and so is an offset in fiscal quarters by the hour."""
    from .test_engines import shop_with_extra_metrics

    layer = shop_with_extra_metrics(tmp_path)
    err = refusal(layer, {"metrics": ["averagePaymentYearToDate"],
                          "group_by": ["PaymentsModel__paidAt__hour", "PaymentsModel__paidAt__fiscal_quarter"]})
    assert err.code == "unsupported_grain" and "custom granularity is read by day" in err.message
    assert list(err.suggestions) == ["PaymentsModel__paidAt__day"]
    err = refusal(layer, {"metrics": ["paymentsAFiscalQuarterEarlier"], "group_by": ["PaymentsModel__paidAt__hour"]})
    assert err.code == "unsupported_offset" and "grouped below a day (hour)" in err.message, err.message


def test_sub_daily_compiles_on_every_dialect(shop) -> None:
    from engine import SUPPORTED_DIALECTS

    for dialect in SUPPORTED_DIALECTS:
        sql = shop.compile({"metrics": ["PaymentsModel__paymentCount"], "group_by": ["PaymentsModel__paidAt__minute"]}, dialect=dialect)
        assert "paid_at" in sql


def test_a_conversion_metric_is_not_read_below_a_day(tmp_path) -> None:
    """Its window counts days between the base and the conversion event: refused by the hour, naming the metric."""
    from .test_engines import shop_with_extra_metrics

    err = refusal(shop_with_extra_metrics(tmp_path), {"metrics": ["consumerSignupToWebOrderRate"], "group_by": ["metric_time__hour"]})
    assert err.code == "unsupported_grain" and "conversion metric 'consumerSignupToWebOrderRate'" in err.message
    assert err.location.field == "group_by[0]"
