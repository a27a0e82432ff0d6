"""MetricFlow's templates, read by the engine (engine/smq/templates.py); re-exported for the importer."""

from engine.layer.templates import CALLS, TEMPLATE, Reference, TemplateError, parse_reference, references, translate

__all__ = ["CALLS", "TEMPLATE", "Reference", "TemplateError", "parse_reference", "references", "translate"]
