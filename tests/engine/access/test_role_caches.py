"""The compile cache, the paging cache and the per-role sources are shared by every caller of a layer:
the same SMQ compiled for two roles, in either order, must give each role its own answer.

Each test loads a fresh layer, so what the first role leaves in the caches is what the second finds.
"""

from __future__ import annotations

import pytest

from engine import Layer, QueryError, load_layers
from engine.paging import paged_sql

from ...conftest import DEMO_MODELS

SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
# orders of customers in Germany (de_analyst), of corporate customers (corporate_analyst), of everyone
REFERENCE = {
    "de_analyst": """
        SELECT o.channel, COUNT(*) FROM orders o
        JOIN customers c ON UPPER(TRIM(o.customer_ref)) = c.customer_code
        JOIN nations n ON c.nation_id = n.nation_id
        WHERE n.nation_name = 'Germany' GROUP BY 1""",
    "corporate_analyst": """
        SELECT o.channel, COUNT(*) FROM orders o
        JOIN customers c ON UPPER(TRIM(o.customer_ref)) = c.customer_code
        WHERE c.segment = 'corporate' GROUP BY 1""",
    None: "SELECT channel, COUNT(*) FROM orders GROUP BY 1",
}
ORDERS = [("de_analyst", "corporate_analyst", None), (None, "corporate_analyst", "de_analyst"), ("corporate_analyst", None, "de_analyst")]


def fresh_shop() -> Layer:
    return load_layers(DEMO_MODELS)["shop"]


@pytest.fixture(scope="module")
def expected(duckdb_runner) -> dict[str | None, list[tuple]]:
    answers = {role: sorted(duckdb_runner(sql)[1]) for role, sql in REFERENCE.items()}
    assert len({tuple(rows) for rows in answers.values()}) == 3, "each role must see different numbers"
    return answers


@pytest.mark.parametrize("roles", ORDERS, ids=["-".join(str(r) for r in o) for o in ORDERS])
def test_compile_cache_gives_each_role_its_own_answer(roles, duckdb_runner, expected) -> None:
    shop = fresh_shop()
    for role in roles:
        got = sorted(duckdb_runner(shop.compile(SMQ, role=role))[1])
        assert got == expected[role], f"role {role} after {roles[:roles.index(role)]}"
    for role in reversed(roles):  # and again, now every answer is cached
        assert sorted(duckdb_runner(shop.compile(SMQ, role=role))[1]) == expected[role], f"role {role}, cached"


@pytest.mark.parametrize("roles", ORDERS, ids=["-".join(str(r) for r in o) for o in ORDERS])
def test_paging_cache_gives_each_role_its_own_answer(roles, duckdb_runner, expected) -> None:
    shop = fresh_shop()
    for role in [*roles, *reversed(roles)]:
        page = paged_sql(shop, SMQ, role, limit=10)
        assert sorted(duckdb_runner(page.run)[1]) == expected[role], f"role {role} in {roles}"


@pytest.mark.parametrize("first", ["corporate_analyst", "de_analyst"])
def test_a_hidden_element_stays_hidden_whoever_compiled_it_first(first: str) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__customerName"], "limit": 3}
    shop = fresh_shop()
    for role in (first, "de_analyst" if first == "corporate_analyst" else "corporate_analyst"):
        if role == "de_analyst":  # customers' names are hidden from de_analyst
            with pytest.raises(QueryError):
                shop.compile(smq, role=role)
            with pytest.raises(QueryError):
                paged_sql(shop, smq, role, limit=3)
        else:
            assert "customer_name" in shop.compile(smq, role=role)
            assert "customer_name" in paged_sql(shop, smq, role, limit=3).run
