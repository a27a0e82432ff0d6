"""The web playground (playground/ -> service/static/playground), served by `smq serve` at `/`.

Without a browser: the page and its assets are served with the right types and cache headers, the
OpenAPI document does not list them, and the committed build was made from the committed sources.
In a real browser (Debian's Chromium driven by Playwright, against a real `smq serve`): browse the
layer and the join graph, build a multi-metric query with a filter and check its rows against /query,
switch the SQL dialect, see a bad filter's error where it is, download CSV, share the URL, and watch a
scripted agent run (an OpenAI-compatible model played by a local HTTP server) stream its turns.

Set SMQ_PLAYGROUND_SCREENSHOTS=docs/img to save the screenshots of docs/playground.md.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.agent.fixtures import FINAL_SQL, TOP_SMQ
from tests.conftest import ROOT
from tests.service.conftest import running_service

PLAYGROUND = ROOT / "playground"
BUILT = ROOT / "service" / "static" / "playground"
SOURCES = ("index.html", "package.json", "package-lock.json", "vite.config.js", "src")  # as scripts/stamp.mjs
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = os.environ.get("SMQ_PLAYGROUND_SCREENSHOTS")
TIMEOUT_MS = 30_000


# -- without a browser --------------------------------------------------------------------------------

def source_hash() -> str:
    """The hash scripts/stamp.mjs writes into the build: sha256 over "path\\0bytes\\0", paths sorted."""
    files: list[str] = []
    for name in SOURCES:
        path = PLAYGROUND / name
        found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        files += [p.relative_to(PLAYGROUND).as_posix() for p in found]
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + (PLAYGROUND / rel).read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_committed_build_is_made_from_the_committed_sources() -> None:
    recorded = (BUILT / "SOURCE_HASH").read_text().strip()
    assert recorded == source_hash(), ("playground/ changed without a rebuild: run `npm ci && npm run build` in "
                                       "playground/ and commit service/static/playground")


def test_the_page_references_only_built_assets() -> None:
    html = (BUILT / "index.html").read_text()
    assets = {p.name for p in (BUILT / "assets").iterdir()}
    referenced = [part.split('"')[0] for part in html.split('/playground/assets/')[1:]]
    assert referenced and all(name in assets for name in referenced)
    assert "http://" not in html and "https://" not in html  # offline: nothing from a CDN


def test_page_and_assets_are_served_with_types_and_cache_headers(client) -> None:
    for path in ("/", "/playground", "/playground/"):
        page = client.get(path)  # no key: the page is public, the API calls it makes are not
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["cache-control"] == "no-cache" and "default-src 'self'" in page.headers["content-security-policy"]
    for asset in (BUILT / "assets").iterdir():
        response = client.get(f"/playground/assets/{asset.name}")
        assert response.status_code == 200 and response.content == asset.read_bytes()
        kind = {"js": "text/javascript", "css": "text/css"}[asset.suffix[1:]]
        assert response.headers["content-type"].startswith(kind)
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    missing = client.get("/playground/assets/nothing.js")
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    assert client.get("/playground/assets/..%2F..%2Fapp.py").status_code == 404
    assert client.get("/v1/databases").status_code == 401  # the API stays keyed


def test_the_openapi_document_does_not_list_the_page(client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert all(path.startswith("/v1/") for path in paths)


# -- a scripted model behind an OpenAI-compatible endpoint --------------------------------------------

CLARIFY_MARK = "whose country"
QUESTION_ASKED = "Customer country or supplier country?"


def tool_call(name: str, reasoning: str, **arguments: Any) -> dict[str, Any]:
    return {"content": reasoning, "tool_calls": [{"id": f"call_{name}", "type": "function",
                                                  "function": {"name": name, "arguments": json.dumps(arguments)}}]}


class FakeModel:
    """Answers chat completions from a script chosen by the question; the plain script's second turn waits
    for `gate`, so a test can see the first turn on the page while the run is still going."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                self._send(model.answer(body["messages"]))

            def _send(self, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        question = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        compile_ = tool_call("convertSmqToSql", "Count orders per country, top three.", smq=TOP_SMQ)
        final = tool_call("execute", "Rank the countries.", sql=FINAL_SQL)
        if CLARIFY_MARK in question:
            script = [tool_call("ask_user", "Ambiguous: whose country?", question=QUESTION_ASKED), compile_, final]
        else:
            script = [compile_, final]
            if turn == 1:
                self.gate.wait(60)
        message = script[min(turn, len(script) - 1)]
        return {"model": "scripted", "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                "choices": [{"message": {"role": "assistant", **message}, "finish_reason": "tool_calls"}]}

    def __enter__(self) -> FakeModel:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


# -- the browser ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        reason = "Chromium is not installed (apt-get install -y chromium); .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with FakeModel() as fake:
        yield fake


@pytest.fixture(scope="module")
def base(models_dir: Path, model: FakeModel, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"SMQ_PROVIDER": "openai", "OPENAI_BASE_URL": model.url, "SMQ_MODEL": "scripted",
           "SMQ_TRACE_DIR": str(tmp_path_factory.mktemp("traces")), "SMQ_AGENT_TIPS": "0", "SMQ_AGENT_PROFILE": "0"}
    with running_service("--models-dir", str(models_dir), "--open", env=env) as url:
        yield url


def open_page(browser: Any, url: str, width: int = 1280, height: int = 800) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.errors = errors
    page.goto(url)
    return page


def shot(page: Any, name: str, full_page: bool = False) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"playground-{name}.png"), full_page=full_page)


def hash_smq(page: Any) -> dict[str, Any]:
    params = parse_qs(urlsplit(page.url).fragment)
    return json.loads(params["smq"][0])


def table_rows(page: Any, caption: str) -> list[list[Any]]:
    table = page.locator(f"table:has(caption:text-is('{caption}'))")
    return table.evaluate("t => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => JSON.parse(c.dataset.value)))")


def wait_table(page: Any, caption: str, rows: list[list[Any]]) -> None:
    """Until the table shows exactly these rows (an earlier query's answer may still be on the page)."""
    page.wait_for_function(
        """([caption, rows]) => {
            const t = [...document.querySelectorAll('table')].find(t => t.caption && t.caption.textContent === caption);
            if (!t) return false;
            const shown = [...t.tBodies[0].rows].map(r => [...r.cells].map(c => JSON.parse(c.dataset.value)));
            return JSON.stringify(shown) === JSON.stringify(rows);
        }""", arg=[caption, rows])


def wait_rows(page: Any, caption: str = "Query rows") -> None:
    page.locator(f"table:has(caption:text-is('{caption}')) tbody tr").first.wait_for()


def test_browse_the_layer_and_the_join_graph(browser, base) -> None:
    page = open_page(browser, f"{base}/#db=shop")
    page.get_by_label("Database").wait_for()
    assert "shop (duckdb, ok)" in page.get_by_label("Database").inner_text()
    page.get_by_text("OrderItemsModel", exact=True).wait_for()
    page.get_by_label("Search elements").fill("money earned")  # a description, not a name
    page.wait_for_function("() => !document.querySelector('nav p.hint').textContent.startsWith('8 of')")
    revenue = page.locator("li.element", has=page.locator("code[title='OrderItemsModel__revenue']"))
    assert revenue.count() == 1 and "after discounts" in revenue.inner_text().lower()
    assert page.locator("code[title='OrdersModel__channel']").count() == 0  # no match: hidden
    page.get_by_label("Search elements").fill("")
    shot(page, "browse")

    page.get_by_role("tab", name="Join graph").click()
    graph = page.locator("svg.graph-svg")
    graph.wait_for()
    assert graph.locator(".node").count() >= 8
    edges = page.locator("table.edges-table tbody tr")
    edges.first.wait_for()
    assert edges.count() == graph.locator(".edge").count() >= 7
    assert "many_to_one" in page.locator("table.edges-table").inner_text()
    assert graph.locator(".edge-end", has_text="N").count() >= 7  # the many ends are marked
    shot(page, "join-graph")
    assert page.errors == []


def test_build_a_query_by_clicking_and_check_it_against_the_api(browser, base) -> None:
    page = open_page(browser, f"{base}/#db=shop")
    page.get_by_label("Search elements").fill("revenue")
    page.get_by_role("button", name="Add metric OrderItemsModel__revenue", exact=True).click()
    page.get_by_label("Add a metric").select_option("OrdersModel__orderCount")
    page.get_by_label("Search elements").fill("channel")
    page.get_by_role("button", name="Group by OrdersModel__channel", exact=True).click()
    page.get_by_label("Filter element").select_option("OrdersModel__status")
    assert page.get_by_label("Operator of OrdersModel__status").input_value() == "equals"
    value = page.get_by_label("Value for OrdersModel__status")
    page.locator("#nf-suggest option[value='delivered']").wait_for(state="attached")  # suggested from the data
    value.fill("delivered")  # a suggestion picked: taken at once
    page.get_by_role("button", name="Add filter").click()
    page.locator("li[data-filter='0'] .chip", has_text="delivered").wait_for()

    expected_smq = {"metrics": ["OrderItemsModel__revenue", "OrdersModel__orderCount"],
                    "group_by": ["OrdersModel__channel"],
                    "filters": [{"member": "OrdersModel__status", "operator": "equals", "values": ["delivered"]}]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('delivered')")
    assert hash_smq(page) == expected_smq  # the shareable URL holds the query
    wait_rows(page)
    answer = httpx.post(f"{base}/v1/databases/shop/query", json={"smq": expected_smq}).json()
    wait_table(page, "Query rows", answer["rows"])
    assert page.locator("pre[aria-label='Compiled SQL']").inner_text().strip() == httpx.post(
        f"{base}/v1/databases/shop/compile", json={"smq": expected_smq, "preview": False}).json()["sql"].strip()
    assert page.locator(".chart[data-kind='bar']").count() == 1  # categories: bars
    shot(page, "query")

    # sort by a column (its header is a button)
    page.get_by_role("button", name="OrdersModel__orderCount", exact=True).click()
    page.locator("th[aria-sort='ascending']", has_text="OrdersModel__orderCount").wait_for()
    counts = [row[2] for row in table_rows(page, "Query rows")]
    assert counts == sorted(counts)

    # the SQL in another dialect
    page.get_by_label("Dialect").select_option("postgres")
    page.locator("pre[data-dialect='postgres']").wait_for()
    postgres = httpx.post(f"{base}/v1/databases/shop/compile",
                          json={"smq": expected_smq, "dialect": "postgres", "preview": False}).json()["sql"]
    assert page.locator("pre[aria-label='Compiled SQL']").inner_text().strip() == postgres.strip()

    # CSV of the rows
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == answer["columns"]
    assert sorted(lines[1:]) == sorted([[str(v) for v in row] for row in answer["rows"]])

    # the URL opens the same query elsewhere
    other = open_page(browser, page.url)
    wait_table(other, "Query rows", answer["rows"])
    assert other.get_by_label("Dialect").input_value() == "postgres"
    assert page.errors == [] and other.errors == []


def test_a_time_axis_is_drawn_as_a_line_and_one_value_as_a_number(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue", "averageOrderValue"], "group_by": ["OrdersModel__orderDate__month"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    page.locator(".chart[data-kind='line'] svg").wait_for()
    assert page.get_by_label("Grain of OrdersModel__orderDate").input_value() == "month"
    shot(page, "line-chart")
    page.get_by_role("button", name="Remove group by OrdersModel__orderDate__month").click()
    page.locator(".big-number").first.wait_for()
    assert page.locator(".big-number").count() == 2


def test_revenue_by_month_and_country_as_a_newcomer_would(browser, base) -> None:
    """The issue's "done when": find a metric, group it by month and country, see the numbers, a chart, the SQL."""
    page = open_page(browser, f"{base}/#db=shop")
    page.get_by_label("Search elements").fill("money earned")
    page.get_by_role("button", name="Add metric OrderItemsModel__revenue", exact=True).click()
    page.get_by_label("Add a group-by").select_option("OrdersModel__orderDate")
    page.get_by_label("Grain of OrdersModel__orderDate").select_option("month")
    # a country is the customer's or the supplier's: the list offers each path, never the ambiguous plain name
    group = page.get_by_label("Add a group-by")
    group.locator("option[value='order.customer.nation.NationsModel__country']").wait_for(state="attached")
    assert group.locator("option[value='NationsModel__country']").count() == 0
    assert "via OrdersModel › CustomersModel" in group.locator("option[value='order.customer.nation.NationsModel__country']").inner_text()
    group.select_option("order.customer.nation.NationsModel__country")
    smq = {"metrics": ["OrderItemsModel__revenue"],
           "group_by": ["OrdersModel__orderDate__month", "order.customer.nation.NationsModel__country"]}
    page.wait_for_function("() => decodeURIComponent(location.hash).includes('order.customer.nation')")
    assert hash_smq(page) == smq
    answer = httpx.post(f"{base}/v1/databases/shop/query", json={"smq": smq}).json()
    wait_table(page, "Query rows", answer["rows"][:25])  # the first page
    page.locator(".chart[data-kind='line'] svg").wait_for()
    assert "DATE_TRUNC('MONTH'" in page.locator("pre[aria-label='Compiled SQL']").inner_text().upper().replace('"', "'")
    shot(page, "month-country")


def test_a_bad_filter_shows_its_error_where_it_is(browser, base) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "filters": ["OrdersModel__channel = 'web'", "OrdersModel__stat = 'x'"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}")
    error = page.locator("li.row-item:has(#filter-1) [role=alert]")
    error.wait_for()
    assert "unknown element 'OrdersModel__stat'" in error.inner_text() and "OrdersModel__status" in error.inner_text()
    assert page.locator("li.row-item:has(#filter-0) [role=alert]").count() == 0
    assert page.get_by_label("Filter 2 expression").get_attribute("aria-invalid") == "true"
    shot(page, "filter-error")

    page.get_by_role("tab", name="JSON").click()
    text = page.get_by_label("SMQ as JSON").input_value()
    line = text.split("\n").index(next(s for s in text.split("\n") if "OrdersModel__stat " in s)) + 1
    assert f"line {line}: filters[1]" in page.locator("#smq-json-errors").inner_text()
    # fixing it in the JSON fixes the query
    page.get_by_label("SMQ as JSON").fill(text.replace("OrdersModel__stat ", "OrdersModel__status "))
    wait_rows(page)
    assert page.locator("#smq-json-errors li").count() == 0
    page.get_by_label("SMQ as JSON").fill('{"metrics": [')
    assert "JSON:" in page.locator("#smq-json-errors").inner_text()


def test_the_agent_streams_its_turns_and_its_sql_opens_as_a_query(browser, base, model) -> None:
    page = open_page(browser, f"{base}/#db=shop&tab=ask")
    page.get_by_label("Question", exact=True).fill("Which three countries placed the most orders?")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.locator("ol.turns > li").first.wait_for()  # streamed: the run is still waiting for its second turn
    assert page.locator("[data-status]").count() == 0
    model.gate.set()
    page.locator("[data-status='answered']").wait_for()
    assert page.locator("ol.turns > li").count() == 2
    assert page.get_by_label("Final SQL").inner_text().strip() == FINAL_SQL.strip()
    shot(page, "agent")
    page.get_by_role("button", name="Open the final SQL as a query").click()
    executed = httpx.post(f"{base}/v1/databases/shop/execute", json={"sql": FINAL_SQL}).json()
    wait_table(page, "Rows of the final SQL", executed["rows"])


def test_the_agent_asks_and_the_answer_goes_on(browser, base) -> None:
    page = open_page(browser, f"{base}/#db=shop&tab=ask")
    page.get_by_label("Question", exact=True).fill(f"Top three countries by orders ({CLARIFY_MARK}?)")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.locator("[data-status='needs_clarification']").wait_for()
    page.get_by_label(QUESTION_ASKED).fill("the customer's")
    page.get_by_role("button", name="Send answers").click()
    page.locator("[data-status='answered']").wait_for()
    assert page.locator("ol.turns > li").count() == 3


def test_keyboard_and_a_narrow_screen(browser, base) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue"], "group_by": ["order.customer.nation.NationsModel__country"]}
    page = open_page(browser, f"{base}/#db=shop&smq={json.dumps(smq)}", width=390, height=844)
    wait_rows(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing spills sideways
    for landmark in ("banner", "main", "navigation"):
        assert page.get_by_role(landmark).count() >= 1
    page.locator(".chart svg").wait_for()
    shot(page, "narrow", full_page=True)
    page.get_by_role("tab", name="Query").focus()
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tab", name="JSON").get_attribute("aria-selected") == "true"
    assert page.evaluate("document.activeElement.id") == "tab-json"
    page.keyboard.press("End")
    assert page.get_by_role("tab", name="Ask the agent").get_attribute("aria-selected") == "true"


def test_a_keyed_server_takes_the_key_from_the_page(browser, models_dir, keys_file) -> None:
    with running_service("--models-dir", str(models_dir), "--api-keys", str(keys_file)) as url:
        page = open_page(browser, f"{url}/")
        page.get_by_text("This server needs an API key").wait_for()
        page.get_by_label("API key").fill("shop-key")
        page.get_by_role("button", name="Use key").click()
        page.get_by_text("OrdersModel", exact=True).wait_for()
        assert page.get_by_label("Database").locator("option").all_inner_texts() == ["shop (duckdb, ok)"]
        assert page.evaluate("sessionStorage.getItem('smq.apiKey')") == "shop-key"
