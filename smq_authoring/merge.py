"""Re-running `smq init` on a layer that was edited by hand: a three-way merge, never an overwrite.

base = what `smq init` generated last time (the snapshot in `.smq/scaffold.json`), current = the
files as they are now, new = what the database suggests today. Field by field:

* unchanged by the user (current == base): take the new value (a column's type changed, a new
  table or column appears, a dropped column disappears);
* changed by the user: keep theirs, and say so when the database now suggests something else;
* added by the user (in current, not in base): keep; deleted by the user (in base, not in current):
  do not add it back.

Models are matched by their physical table (a model renamed by hand is still the same model), their
elements by name, joins by the tables and expressions they link. Without a snapshot (a hand-written
layer, or the snapshot was deleted), everything present is treated as the user's and only what is
missing is added.
"""

from __future__ import annotations

import re
from typing import Any

from .layerdoc import LayerDoc, ModelEntry, clone, join_identity, model_name, norm_expr

MISSING: Any = object()
ELEMENT_LISTS = ("dimensions", "measures", "metrics")


class Merger:
    def __init__(self, base: LayerDoc | None, current: LayerDoc, new: LayerDoc) -> None:
        self.base, self.current, self.new = base, current, new
        self.changes: list[str] = []  # what this run changes in the files
        self.kept: list[str] = []  # the user's choices this run respected (reported every time)

    # -- values and mappings ---------------------------------------------------------------------
    def value(self, b: Any, c: Any, n: Any, where: str) -> Any:
        if c == n:
            return c
        if b is MISSING and c is not MISSING:
            return c  # no history: what is on disk is the user's
        if c == b:
            if n is MISSING:
                self.changes.append(f"removed {where}")
            elif c is MISSING:
                self.changes.append(f"added {where}")
            else:
                self.changes.append(f"updated {where}: {_short(c)} -> {_short(n)}")
            return n
        if n != b and n is not MISSING and c is not MISSING:
            self.kept.append(f"kept your {where} ({_short(c)}); the database now suggests {_short(n)}")
        return c

    def mapping(self, b: Any, c: dict[str, Any], n: dict[str, Any], where: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        b = b if isinstance(b, dict) else ({} if b is MISSING else {})
        has_base = b != {} or self.base is not None
        out: dict[str, Any] = {}
        for key in [*c, *(k for k in n if k not in c)]:
            if key in skip:
                out[key] = c.get(key, n.get(key))
                continue
            bv = b.get(key, MISSING) if has_base else MISSING
            cv, nv = c.get(key, MISSING), n.get(key, MISSING)
            if isinstance(cv, dict) and isinstance(nv, dict):
                merged = self.mapping(bv if isinstance(bv, dict) else MISSING, cv, nv, f"{where}.{key}")
            else:
                merged = self.value(bv, cv, nv, f"{where}.{key}")
            if merged is not MISSING:
                out[key] = merged
        return out

    # -- models --------------------------------------------------------------------------------------
    def elements(self, b: list[dict] | Any, c: list[dict], n: list[dict], where: str) -> list[dict]:
        bm = {e.get("name"): e for e in b} if isinstance(b, list) else {}
        cm = {e.get("name"): e for e in c}
        nm = {e.get("name"): e for e in n}
        out = []
        for name, el in cm.items():
            label = f"{where}.{name}"
            if name in bm and name not in nm:
                if el == bm[name]:
                    self.changes.append(f"removed {label} (no longer in the database)")
                    continue
                self.kept.append(f"kept {label}: you edited it, but its column is no longer in the database")
                out.append(el)
            elif name in nm:
                out.append(self.mapping(bm.get(name, MISSING), el, nm[name], label))
            else:
                out.append(el)  # added by hand
        current_exprs = {(norm_expr(e.get("expr") or e.get("name")), e.get("agg")) for e in c}
        for name, el in nm.items():
            if name in cm:
                continue
            if name in bm:
                self.kept.append(f"not re-adding {where}.{name}: you deleted it")
                continue
            if self.base is None and (norm_expr(el.get("expr") or el.get("name")), el.get("agg")) in current_exprs:
                continue  # the same column under a name the user chose
            self.changes.append(f"added {where}.{name}")
            out.append(el)
        return out

    def model(self, b: dict | Any, c: dict[str, Any], n: dict[str, Any]) -> dict[str, Any]:
        where = str(c.get("name"))
        out = self.mapping(b, c, n, where, skip=ELEMENT_LISTS)
        for key in ELEMENT_LISTS:
            bl = b.get(key, []) if isinstance(b, dict) else MISSING
            merged = self.elements(bl, c.get(key) or [], n.get(key) or [], f"{where}.{key}")
            if merged:
                out[key] = merged
            else:
                out.pop(key, None)
        return out

    def models(self) -> tuple[dict[str, ModelEntry], dict[str, str]]:
        """Merged models by identity, and new model name -> merged model name (for renamed models)."""
        base = self.base.models if self.base else {}
        out: dict[str, ModelEntry] = {}
        renames: dict[str, str] = {}
        for ident, entry in self.current.models.items():
            if ident in self.new.models:
                new_entry = self.new.models[ident]
                body = self.model(base[ident].body if ident in base else MISSING, entry.body, new_entry.body)
                out[ident] = ModelEntry(entry.file, body, new_entry.header)
                renames[new_entry.body["name"]] = model_name(body)
            elif ident in base:
                if entry.body == base[ident].body:
                    self.changes.append(f"removed model {entry.body.get('name')} ({entry.file}): its table is no longer in the database")
                    continue
                self.kept.append(f"kept model {entry.body.get('name')}: you edited it, but its table is no longer in the database")
                out[ident] = entry
            else:
                out[ident] = entry  # written by hand
        for ident, entry in self.new.models.items():
            if ident in self.current.models:
                continue
            if ident in base:
                self.kept.append(f"not re-adding model {entry.body['name']}: you deleted {base[ident].file}")
                continue
            body = dict(entry.body)
            taken = {model_name(e.body) for e in out.values()}
            if body["name"] in taken:
                body["name"] = _free(body["name"], taken)
            renames[entry.body["name"]] = body["name"]
            files = {e.file for e in out.values()}
            out[ident] = ModelEntry(entry.file if entry.file not in files else _free_file(entry.file, files), body, entry.header)
            self.changes.append(f"added model {body['name']} ({out[ident].file})")
        return out, renames

    # -- joins ------------------------------------------------------------------------------------------
    def joins(self, models: dict[str, ModelEntry], renames: dict[str, str]) -> tuple[list[dict], dict[str, list[str]]]:
        ids = {"base": self.base.names_to_identity() if self.base else {}, "current": self.current.names_to_identity(),
               "new": self.new.names_to_identity()}
        base = {join_identity(j, ids["base"]): j for j in (self.base.joins if self.base else [])}
        new = {join_identity(j, ids["new"]): _renamed(j, renames) for j in self.new.joins}
        notes = {join_identity(j, ids["new"]): self.new.join_notes.get(join_identity(j, ids["new"]), []) for j in self.new.joins}
        names = {model_name(e.body) for e in models.values()}
        out: list[dict] = []
        for join in self.current.joins:
            ident = join_identity(join, ids["current"])
            label = f"join {join.get('from')} -[{join.get('key')}]-> {join.get('to')}"
            if ident in base and ident not in new:
                if join == base[ident]:
                    self.changes.append(f"removed {label} (no longer found in the database)")
                    continue
                out.append(join)
            elif ident in new:
                out.append(self.mapping(base.get(ident, MISSING), join, new[ident], label))
            else:
                out.append(join)
        current_ids = {join_identity(j, ids["current"]) for j in self.current.joins}
        for ident, join in new.items():
            if ident in current_ids:
                continue
            label = f"join {join['from']} -[{join['key']}]-> {join['to']}"
            if ident in base:
                self.kept.append(f"not re-adding {label}: you deleted it")
                continue
            if join["from"] not in names or join["to"] not in names:
                continue
            taken = {(j.get("from"), j.get("to"), j.get("key")) for j in out}
            if (join["from"], join["to"], join["key"]) in taken:
                join = {**join, "key": _free(join["key"], {str(j.get("key")) for j in out}, sep="_")}
            self.changes.append(f"added {label}")
            out.append(join)
        kept = []
        for join in out:
            if join.get("from") in names and join.get("to") in names:
                kept.append(join)
            else:
                self.changes.append(f"dropped join {join.get('from')} -[{join.get('key')}]-> {join.get('to')}: a model it links is gone")
        merged_ids = {model_name(e.body): ident for ident, e in models.items()}
        merged_notes = {join_identity(j, merged_ids): notes.get(join_identity(j, merged_ids), []) for j in kept}
        return kept, merged_notes

    # -- everything ----------------------------------------------------------------------------------
    def merge(self) -> LayerDoc:
        models, renames = self.models()
        joins, notes = self.joins(models, renames)
        database = self.mapping(self.base.database if self.base else MISSING, self.current.database, self.new.database, "database.yml")
        merged = LayerDoc(database, models, joins, notes, trailer=self.new.trailer, sources=self._sources(models),
                          tests=self._tests(renames))
        return merged

    def _sources(self, models: dict[str, ModelEntry]) -> dict[str, Any] | None:
        if self.new.sources is None:
            return self.current.sources
        entries = list(self.new.sources.get("sources") or [])
        known = {str(e.get("table", "")).lower() for e in entries}
        for entry in (self.current.sources or {}).get("sources") or []:
            table = str(entry.get("table", "")).lower()
            if table not in known and any(str(m.body.get("table", "")).lower() == table for m in models.values()):
                entries.append(entry)  # a kept model's table that the database no longer has
        return {"sources": entries}

    def _tests(self, renames: dict[str, str]) -> str | None:
        base = self.base.tests if self.base else None
        current, new = self.current.tests, self.new.tests
        if new is not None:
            for old, name in renames.items():
                if name and old != name:
                    new = re.sub(rf"\b{re.escape(old)}\b", name, new)
        if current is None:
            if base is not None:
                return None  # deleted by the user
            return new
        if current == base:
            if new != current:
                self.changes.append("updated tests/generated.yml")
            return new
        if new is not None and current != new:
            self.kept.append("kept your tests/generated.yml")
        return current


def merge_layers(base: LayerDoc | None, current: LayerDoc, new: LayerDoc) -> tuple[LayerDoc, list[str], list[str]]:
    """The merged layer, what changed (one line each), and which of the user's choices were kept."""
    merger = Merger(clone(base) if base else None, clone(current), clone(new))
    return merger.merge(), merger.changes, merger.kept


def _renamed(join: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    return {**join, "from": renames.get(join["from"], join["from"]), "to": renames.get(join["to"], join["to"])}


def _free(name: str, taken: set[str], sep: str = "") -> str:
    n = 2
    while f"{name}{sep}{n}" in taken:
        n += 1
    return f"{name}{sep}{n}"


def _free_file(file: str, taken: set[str]) -> str:
    stem = file.removesuffix(".yml")
    n = 2
    while f"{stem}_{n}.yml" in taken:
        n += 1
    return f"{stem}_{n}.yml"


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:57] + "...'"
