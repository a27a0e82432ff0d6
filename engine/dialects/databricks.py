"""Databricks: Spark SQL as Databricks runs it, so the same functions and the same quirks."""

from __future__ import annotations

from . import Engine
from .spark import Spark


class Databricks(Spark):
    engine = Engine.DATABRICKS
    display = "Databricks"
    executor = "smq_db.executors.databricks:from_settings"
