"""`smq import dbt`: bring dbt MetricFlow definitions (semantic models, metrics, saved queries) over as a layer."""

from .importer import ImportRefused, ImportResult, import_dbt

__all__ = ["ImportRefused", "ImportResult", "import_dbt"]
