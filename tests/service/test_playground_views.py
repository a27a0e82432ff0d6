"""The playground as people keep it open (issue #31 item 4), in Debian's Chromium against a real `smq serve`:
numbers formatted as the layer says, charts from the data's meaning (several metrics, no stacked ratios or
averages, a chart-type switch, the time grain), every structured-filter operator with values from the data,
date ranges, a warning when a filter value matches no row, the join path asked where it is needed, saved views.

SMQ_PLAYGROUND_SCREENSHOTS=docs/img saves the screenshots of docs/playground.md.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from .test_playground import base, browser, hash_smq, model, open_page, shot, wait_rows, wait_table  # noqa: F401 - fixtures

EUR = "€"


def answer(base: str, smq: dict[str, Any]) -> dict[str, Any]:
    return httpx.post(f"{base}/v1/databases/shop/query", json={"smq": smq}).json()


def cell_texts(page: Any, column: int) -> list[str]:
    return page.locator("table:has(caption:text-is('Query rows')) tbody tr").evaluate_all(
        f"rows => rows.map(r => r.cells[{column}].textContent)")


def test_numbers_are_formatted_as_the_layer_says(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue", "returnRate", "OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    rows = answer(base, smq)["rows"]
    wait_table(page, "Query rows", rows)  # data-value keeps the raw numbers
    assert cell_texts(page, 1) == [f"{EUR}{r[1]:,.2f}" for r in rows]  # currency EUR, 2 decimals
    assert cell_texts(page, 2) == [f"{r[2] * 100:.1f}%" for r in rows]  # percent, 1 decimal
    assert cell_texts(page, 3) == [f"{r[3]:,}" for r in rows]  # a count: no decimals
    page.locator(".chart svg").first.wait_for()
    shot(page, "formatted")
    one = {"metrics": ["OrderItemsModel__revenue", "returnRate"]}
    total = answer(base, one)["rows"][0]
    page.goto(f"{base}/#db=shop&smq={json.dumps(one)}")
    page.locator(".big-value").first.wait_for()
    page.wait_for_function("() => document.querySelectorAll('.big-value').length === 2 && "
                           "document.querySelector('.big-value').textContent.startsWith('€')")
    assert page.locator(".big-value").all_inner_texts() == [f"{EUR}{total[0]:,.2f}", f"{total[1] * 100:.1f}%"]
    assert page.errors == []


def test_two_metrics_are_charted_on_their_own_axes(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue", "returnRate"], "group_by": ["OrdersModel__orderDate__month"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    chart = page.locator(".chart[data-kind='line'][data-series='2']")
    chart.locator("svg").wait_for()
    assert page.locator(".chart").count() == 1  # EUR on the left axis, % on the right: one chart
    svg = chart.inner_html()
    assert "€" in svg and "%" in svg  # both axes carry their unit
    shot(page, "two-metrics")
    # the grain next to the chart changes the query's time group-by
    page.get_by_label("Time grain").select_option("quarter")
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('OrdersModel__orderDate__quarter')")
    wait_table(page, "Query rows", answer(base, {**smq, "group_by": ["OrdersModel__orderDate__quarter"]})["rows"])
    assert page.get_by_label("Grain of OrdersModel__orderDate").input_value() == "quarter"
    assert page.errors == []


def test_only_additive_metrics_are_stacked_and_the_chart_type_is_kept_in_the_url(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue", "averageOrderValue"], "group_by": ["OrdersModel__channel", "OrdersModel__status"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    page.locator(".chart svg").nth(1).wait_for()
    stacked = page.locator(".chart").evaluate_all("cs => cs.map(c => c.dataset.stacked)")
    assert stacked == ["true", "false"]  # a sum of revenues stacks; a stack of averages would add up to nothing
    page.get_by_label("Chart", exact=True).select_option("stacked")
    page.get_by_text("averageOrderValue is not stacked").wait_for()
    assert page.locator(".chart").evaluate_all("cs => cs.map(c => c.dataset.stacked)") == ["true", "false"]
    page.get_by_label("Chart", exact=True).select_option("line")
    page.locator(".chart[data-kind='line']").first.wait_for()
    page.wait_for_function("() => location.hash.includes('chart=line')")
    again = open_page(browser, page.url)
    again.locator(".chart[data-kind='line'] svg").first.wait_for()
    assert again.get_by_label("Chart", exact=True).input_value() == "line"
    again.get_by_label("Chart", exact=True).select_option("table")
    again.wait_for_function("() => document.querySelectorAll('.chart').length === 0")
    wait_rows(again)
    assert page.errors == [] and again.errors == []


def test_every_operator_of_a_text_dimension_with_several_values(browser, base) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    page.get_by_label("Filter element").select_option("OrdersModel__status")
    operators = page.get_by_label("Operator of OrdersModel__status").locator("option").evaluate_all("os => os.map(o => o.value)")
    assert operators == ["equals", "notEquals", "contains", "notContains", "startsWith", "notStartsWith", "endsWith",
                         "notEndsWith", "set", "notSet"]
    page.get_by_label("Operator of OrdersModel__status").select_option("notEquals")
    value = page.get_by_label("Value for OrdersModel__status")
    for v in ("cancelled", "returned"):
        value.fill(v)
        value.press("Enter")
    page.get_by_role("button", name="Add filter").click()
    wanted = {**smq, "filters": [{"member": "OrdersModel__status", "operator": "notEquals", "values": ["cancelled", "returned"]}]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('notEquals')")
    assert hash_smq(page) == wanted
    wait_table(page, "Query rows", answer(base, wanted)["rows"])
    assert "NOT" in page.locator("pre[aria-label='Compiled SQL']").inner_text().upper()
    # set / notSet take no value: the orders without a status
    page.get_by_label("Operator of OrdersModel__status").first.select_option("notSet")
    nulls = {**smq, "filters": [{"member": "OrdersModel__status", "operator": "notSet", "values": []}]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('notSet')")
    wait_table(page, "Query rows", answer(base, nulls)["rows"])
    assert page.get_by_label("Value for OrdersModel__status").count() == 0
    assert page.errors == []


def test_a_date_range_from_to_and_relative(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue"], "group_by": ["OrdersModel__orderDate__month"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    page.get_by_label("Filter element").select_option("OrdersModel__orderDate")
    operators = page.get_by_label("Operator of OrdersModel__orderDate").locator("option").evaluate_all("os => os.map(o => o.value)")
    assert operators[:6] == ["inDateRange", "notInDateRange", "beforeDate", "beforeOrOnDate", "afterDate", "afterOrOnDate"]
    page.get_by_label("From (OrdersModel__orderDate)").fill("2024-01-01")
    page.get_by_label("To (OrdersModel__orderDate)").fill("2024-03-31")
    page.get_by_role("button", name="Add filter").click()
    wanted = {**smq, "filters": [{"member": "OrdersModel__orderDate", "operator": "inDateRange", "values": ["2024-01-01", "2024-03-31"]}]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('2024-03-31')")
    assert hash_smq(page) == wanted
    rows = answer(base, wanted)["rows"]
    assert [r[0][:7] for r in rows] == ["2024-01", "2024-02", "2024-03"]
    wait_table(page, "Query rows", rows)
    shot(page, "date-range")
    page.get_by_label("Date range of OrdersModel__orderDate").select_option("last month")
    page.wait_for_function("() => (new URLSearchParams(location.hash.slice(1)).get('smq') || '').includes('last month')")
    assert hash_smq(page)["filters"] == [{"member": "OrdersModel__orderDate", "operator": "inDateRange", "values": ["last month"]}]
    page.wait_for_function("() => (document.querySelector(\"pre[aria-label='Compiled SQL']\") || {}).textContent?.includes('CURRENT_DATE')")
    assert page.errors == []


def test_a_filter_value_no_row_has_is_said_with_the_nearest(browser, base) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
           "filters": [{"member": "OrdersModel__status", "operator": "equals", "values": ["shiped"]}, "OrdersModel__channel = 'wbe'"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    warning = page.locator("li[data-filter='0'] .field-warning")
    warning.wait_for()
    assert "No row has OrdersModel__status = shiped" in warning.inner_text()
    page.get_by_text("No row matches the filters").wait_for()  # not a silent "no rows"
    text_warning = page.locator("li[data-filter='1'] .field-warning")
    text_warning.wait_for()
    assert "wbe" in text_warning.inner_text()  # a filter written as SQL is checked too
    shot(page, "no-row-warning")
    warning.get_by_role("button", name="shipped").click()
    text_warning.get_by_role("button", name="web").click()
    page.wait_for_function("() => document.querySelectorAll('.field-warning').length === 0")
    fixed = {**smq, "filters": [{"member": "OrdersModel__status", "operator": "equals", "values": ["shipped"]}, "OrdersModel__channel = 'web'"]}
    assert hash_smq(page) == fixed
    wait_table(page, "Query rows", answer(base, fixed)["rows"])
    assert page.errors == []


def test_the_join_path_is_asked_where_one_is_needed(browser, base) -> None:
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps({'metrics': ['OrderItemsModel__revenue']})}")
    page.get_by_label("Search elements").fill("country")
    page.get_by_role("button", name="Group by NationsModel__country", exact=True).click()
    choice = page.get_by_role("group", name="Join path for NationsModel__country")
    choice.wait_for()
    assert "OrderItemsModel › ProductsModel › SuppliersModel › NationsModel" in choice.inner_text()
    shot(page, "path-choice")
    choice.get_by_role("button", name="product.supplier.nation.NationsModel__country").click()
    smq = {"metrics": ["OrderItemsModel__revenue"], "group_by": ["product.supplier.nation.NationsModel__country"]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('product.supplier')")
    assert hash_smq(page) == smq
    wait_table(page, "Query rows", answer(base, smq)["rows"][:25])
    # where no path is needed, nothing is asked
    page.get_by_label("Search elements").fill("channel")
    page.get_by_role("button", name="Group by OrdersModel__channel", exact=True).click()
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('OrdersModel__channel')")
    assert page.get_by_role("group", name="Join path for OrdersModel__channel").count() == 0
    assert page.errors == []


def test_saved_views_open_again(browser, base) -> None:
    first = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    page = open_page(browser, f"{base}/#db=shop&chart=bar&smq={json.dumps(first)}")
    wait_rows(page)
    page.get_by_text("Saved views (0)").click()
    page.get_by_label("View name").fill("orders by channel")
    page.get_by_role("button", name="Save view").click()
    page.get_by_role("link", name="orders by channel").wait_for()
    page.get_by_role("button", name="Remove group by OrdersModel__channel").click()
    page.wait_for_function("() => !decodeURIComponent(location.hash).includes('OrdersModel__channel')")
    page.get_by_role("link", name="orders by channel").click()
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('OrdersModel__channel')")
    assert hash_smq(page) == first and page.get_by_label("Chart", exact=True).input_value() == "bar"
    wait_table(page, "Query rows", answer(base, first)["rows"])
    stored = page.evaluate("JSON.parse(localStorage.getItem('smq.savedViews'))")
    assert [v["name"] for v in stored] == ["orders by channel"]
    page.get_by_role("button", name="Forget view orders by channel").click()
    assert page.evaluate("JSON.parse(localStorage.getItem('smq.savedViews'))") == []
    assert page.errors == []
