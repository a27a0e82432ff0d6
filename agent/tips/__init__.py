"""The tip library (APEX-SQL style hypothesis checks): `tips.yml` is the data, `retrieve.py` the rules.

    from agent.tips import TipRetriever
    tips = TipRetriever(question, dialect="duckdb").retrieve(compiled_tree, smq)
"""

from .retrieve import CATEGORIES, Tip, TipRetriever, TipsError, load_tips, parse_tips, render, sql_features

__all__ = ["CATEGORIES", "Tip", "TipRetriever", "TipsError", "load_tips", "parse_tips", "render", "sql_features"]
