"""The embedded demo database "shop".

* ``smq_db.demo.generate``: the rows, generated deterministically (``generate()`` -> tables).
* ``smq_db.demo.build``: writers -- ``build_duckdb``, ``build_sqlite``, ``load_into`` (any DB-API
  connection) and ``ensure_demo`` (builds the file a layer's database.yml points at, on first use).

``semantic_models/shop`` is its semantic layer. From a shell:
``python -m smq_db.demo.build semantic_models/shop/data/shop.duckdb``.
"""
