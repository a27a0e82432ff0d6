"""A measure's or metric's number format from a dbt project: its `meta` (or `config.meta`), else its label.

`meta.format` is read in smq's own shape (`{type: currency, currency: EUR, decimals: 2}` or `percent`)
or in Lightdash's, the common dbt convention (`format: eur | usd | gbp | jpy | percent`, `round: 2`);
other values belong to other tools and are left alone. Without one, a label ending in a unit in
parentheses says it: `Revenue (EUR)`, `Revenue (€)`, `Return rate (%)`.
"""

from __future__ import annotations

import re
from typing import Any

from engine.layer.formats import CURRENCY_CODE, MAX_DECIMALS
from engine.layer.model import FORMAT_TYPES

SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY"}
LIGHTDASH_CURRENCIES = ("usd", "eur", "gbp", "jpy", "dkk", "chf", "cad", "aud", "cny", "inr")
LABEL_UNIT = re.compile(r"\(\s*([A-Z]{3}|[€$£¥%])\s*\)\s*\Z")


def _meta(item: Any) -> dict[str, Any]:
    meta = item.get("meta")
    if not isinstance(meta, dict):
        config = item.get("config")
        meta = config.get("meta") if isinstance(config, dict) else None
    return meta if isinstance(meta, dict) else {}


def _decimals(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DECIMALS:
        return None
    return value


def dbt_format(item: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(the smq `format` for a dbt measure or metric body, or None; a problem with its meta.format, or None)."""
    meta = _meta(item)
    raw = meta.get("format")
    decimals = _decimals(meta.get("decimals", meta.get("round")))
    out: dict[str, Any] | None = None
    if isinstance(raw, dict):  # smq's own shape: checked, as the layer loader would
        kind = str(raw.get("type") or "").lower()
        if kind not in FORMAT_TYPES:
            return None, f"meta.format.type {raw.get('type')!r} is not one of {', '.join(FORMAT_TYPES)}"
        out = {"type": kind}
        if kind == "currency":
            code = raw.get("currency")
            if not isinstance(code, str) or not CURRENCY_CODE.match(code.upper()):
                return None, f"meta.format.currency {code!r} is not an ISO 4217 currency code (e.g. EUR)"
            out["currency"] = code.upper()
        own = raw.get("decimals")
        if own is not None and _decimals(own) is None:
            return None, f"meta.format.decimals {own!r} is not a whole number from 0 to {MAX_DECIMALS}"
        decimals = _decimals(own) if own is not None else decimals
    elif isinstance(raw, str):
        word = raw.strip().lower()
        if word in ("percent", "number"):
            out = {"type": word}
        elif word in LIGHTDASH_CURRENCIES:
            out = {"type": "currency", "currency": word.upper()}
        elif word == "currency" and isinstance(meta.get("currency"), str) and CURRENCY_CODE.match(meta["currency"].upper()):
            out = {"type": "currency", "currency": meta["currency"].upper()}
    if out is None:
        match = LABEL_UNIT.search(str(item.get("label") or ""))
        if match:
            unit = match.group(1)
            out = {"type": "percent"} if unit == "%" else {"type": "currency", "currency": SYMBOLS.get(unit, unit)}
    if out is not None and decimals is not None:
        out["decimals"] = decimals
    return out, None


def label_and_meta(item: Any) -> dict[str, Any]:
    """A dbt element's `label` and its `meta` (or `config.meta`), as the layer's own keys (listings only)."""
    out: dict[str, Any] = {}
    if item.get("label"):
        out["label"] = str(item["label"]).strip()
    meta = _meta(item)
    if meta:
        out["meta"] = _plain(meta)
    return out


def _plain(value: Any) -> Any:
    """YAML's positioned mappings and lists as plain ones (what the layer file is written from)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
