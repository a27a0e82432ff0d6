"""Directives: term extraction, the hybrid index on the demo layer and on Spider databases, bridges,
roles, inferred columns (scripted model), the cache, and `smq directives`."""

from __future__ import annotations

import importlib.util
import json
import sys
import time

import pytest

from agent.directives import DirectiveConfig, DirectiveIndex, clear_cache, directives_for, index_for
from agent.directives.graph import adjacency, bridges, shortest_path
from agent.directives.terms import implied_terms, inferred_terms, split_identifier, terms
from agent.providers.scripted import ScriptedProvider, say
from engine import Layer, load_layers
from tests.conftest import DEMO_MODELS, ROOT, SHARED

SPIDER = SHARED / "data" / "spider1"


@pytest.fixture(scope="module")
def shop() -> Layer:
    return load_layers(DEMO_MODELS)["shop"]


def load_bench():
    spec = importlib.util.spec_from_file_location("directives_spider1", ROOT / "bench" / "directives_spider1.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["directives_spider1"] = module
    spec.loader.exec_module(module)
    return module


# -- terms ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, words", [
    ("orderDate", ["order", "date"]), ("order_date", ["order", "date"]), ("OrderItemsModel", ["order", "items", "model"]),
    ("HTTPServerError", ["http", "server", "error"]), ("ref_Template_Types", ["ref", "template", "types"]),
    ("year2024total", ["year", "2024", "total"]), ("customer-ref", ["customer", "ref"]),
])
def test_identifiers_split_into_words(name, words):
    assert split_identifier(name) == words


def test_terms_drop_stop_words_and_stem_plurals():
    assert terms("Which countries placed the most orders?") == terms("country placed order")
    assert "which" not in terms("Which countries")
    assert implied_terms("orders in 1980") and not implied_terms("orders above 500")


def test_inferred_terms_from_a_scripted_model():
    provider = ScriptedProvider([say('["nation_name", "order_count", "orderDate"]')])
    got = inferred_terms("Where do buyers live?", provider, table_names=["orders", "nations"])
    assert got == terms("nation name order count order date")
    assert "Tables: nations, orders" in provider.requests[0]["messages"][0].content
    broken = ScriptedProvider([say("I think you need the region and the nation.")])
    assert set(terms("region nation")) <= set(inferred_terms("q", broken))


# -- the demo layer ---------------------------------------------------------------------------------
@pytest.mark.parametrize("question, needed, unneeded", [
    ("Which three countries placed the most orders in 2024?", {"OrdersModel", "CustomersModel", "NationsModel"},
     {"ProductsModel", "SuppliersModel"}),
    ("How many suppliers are there per region?", {"SuppliersModel", "NationsModel", "RegionsModel"}, {"PaymentsModel"}),
    ("Which payment method is used most?", {"PaymentsModel"}, {"SuppliersModel", "RegionsModel"}),
    ("Revenue per product category", {"ProductsModel", "OrderItemsModel"}, {"RegionsModel", "SuppliersModel"}),
])
def test_demo_questions_find_their_models(shop, question, needed, unneeded):
    verdict = directives_for(shop, question)
    assert needed <= set(verdict.relevant), verdict.to_json()
    assert not unneeded & set(verdict.relevant)
    assert sorted(verdict.relevant + verdict.irrelevant) == sorted(shop.models)
    assert len(verdict.relevant) <= len(shop.models) // 2  # the budget: at most half of a >= 6-model layer


def test_a_bridge_is_relevant_with_a_reason(shop):
    verdict = directives_for(shop, "How many suppliers are there per region?").by_model()
    assert verdict["NationsModel"].relevant and verdict["NationsModel"].reason.startswith("joins ")
    assert verdict["PaymentsModel"].reason == "no term of the question matches it"


def test_graph_helpers(shop):
    adj = adjacency(shop)
    assert shortest_path(adj, "SuppliersModel", "RegionsModel", 2) == ["SuppliersModel", "NationsModel", "RegionsModel"]
    assert shortest_path(adj, "PaymentsModel", "RegionsModel", 2) is None
    assert bridges(adj, ["CustomersModel", "RegionsModel"]) == {"NationsModel": ("CustomersModel", "RegionsModel")}


def test_a_role_does_not_index_hidden_elements(shop):
    clear_cache()
    plain = index_for(shop).directives("customer name")
    de = index_for(shop, "de_analyst").directives("customer name")
    assert plain.by_model()["CustomersModel"].relevant
    def matched(verdict):
        reason = verdict.by_model()["CustomersModel"].reason
        return reason.split("(", 1)[1].split(")", 1)[0].split(", ") if "(" in reason else []

    assert "name" in matched(plain)
    assert "name" not in matched(de)  # customerName is hidden from de_analyst: not indexed, not shown


def test_inferred_columns_reach_models_the_question_does_not_name(shop):
    question = "Who bought the most?"
    assert "NationsModel" not in directives_for(shop, question).relevant
    provider = ScriptedProvider([say('["customer_name", "nation_name", "order_count"]')])
    assert "NationsModel" in directives_for(shop, question, provider=provider).relevant


def test_index_is_cached_per_version_and_fast(shop):
    clear_cache()
    first = index_for(shop)
    assert index_for(shop) is first and index_for(shop, "de_analyst") is not first
    started = time.perf_counter()
    for _ in range(50):
        first.directives("Which three countries placed the most orders in 2024?")
    assert (time.perf_counter() - started) / 50 < 0.02  # well under a request's budget


def test_embeddings_are_fused_by_reciprocal_rank(shop):
    class OneHot:
        """A stand-in embedder: the payments model is 'closest in meaning' to every question."""

        name = "onehot"

        def embed(self, texts):
            import numpy as np

            out = np.zeros((len(texts), 2), dtype=np.float32)
            for i, text in enumerate(texts):
                out[i, 0 if text.lower().startswith("payments") or "?" in text else 1] = 1.0
            return out

    index = DirectiveIndex(shop, embedder=OneHot())
    verdict = index.directives("How are customers spread over segments?")
    assert "PaymentsModel" in verdict.relevant and "CustomersModel" in verdict.relevant


# -- Spider databases -----------------------------------------------------------------------------------
@pytest.mark.skipif(not (SPIDER / "tables.json").exists(), reason="Spider 1.0 data not in shared/")
def test_spider_databases_recall_their_gold_tables(tmp_path):
    bench = load_bench()
    dbs = {"concert_singer", "dog_kennels", "student_transcripts_tracking"}
    layers = bench.spider_layers(SPIDER, tmp_path, dbs)
    questions = [q for q in json.loads((SPIDER / "dev.json").read_text(encoding="utf-8")) if q["db_id"] in dbs]
    stats = bench.evaluate(layers, questions, DirectiveConfig(), None)["stats"]
    big = bench.summary(stats, ["dog_kennels", "student_transcripts_tracking"])
    assert big["recall"] >= 0.97 and big["hidden"] >= 0.5
    assert bench.summary(stats, ["concert_singer"])["recall"] >= 0.97


# -- the command -----------------------------------------------------------------------------------------
def test_cli_single_question_and_batch(tmp_path, capsys):
    from smq_cli.commands.explore_commands import main

    assert main(["directives", "--models-dir", str(DEMO_MODELS), "--db", "shop", "How many suppliers per region?"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"relevant", "irrelevant"} and "SuppliersModel" in out["relevant"]
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "a", "question": "payment methods"}\n\n{"id": 7, "question": "regions"}\n', encoding="utf-8")
    assert main(["directives", "--models-dir", str(DEMO_MODELS), "--db", "shop", "--questions", str(batch), "--reasons"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["id"] for line in lines] == ["a", 7] and "PaymentsModel" in lines[0]["relevant"] and "reasons" in lines[0]
    batch.write_text("not json\n", encoding="utf-8")
    assert main(["directives", "--models-dir", str(DEMO_MODELS), "--db", "shop", "--questions", str(batch)]) == 2
    assert main(["directives", "--models-dir", str(DEMO_MODELS), "--db", "nope", "x"]) == 2
