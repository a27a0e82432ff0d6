"""Function knowledge of the distributed engines (Spark/Databricks, ClickHouse), as data.

``ALLOWED`` extends the raw-SQL allow-list (engine/allowlist.py) for that dialect; ``DENIED`` names what
reads files, reaches the network, runs programs or reflects into the JVM there — refused in raw SQL even
when a layer's `raw_sql.functions` lists it, and refused by these engines' executors on everything they
run (smq_db/dialect_functions).
"""

from __future__ import annotations

from . import clickhouse, spark

def _lower(names: frozenset[str]) -> frozenset[str]:
    return frozenset(name.lower() for name in names)


ALLOWED: dict[str, frozenset[str]] = {"spark": _lower(spark.ALLOWED), "databricks": _lower(spark.ALLOWED),
                                      "clickhouse": _lower(clickhouse.ALLOWED)}
DENIED: dict[str, dict[str, str]] = {dialect: {name.lower(): why for name, why in denied.items()} for dialect, denied in
                                     (("spark", spark.DENIED), ("databricks", spark.DENIED), ("clickhouse", clickhouse.DENIED))}
