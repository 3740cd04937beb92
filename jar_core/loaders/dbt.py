"""Descriptions of tables and columns from a file: a dbt project's documentation or a plain mapping.

dbt keeps what a team wrote about its models and sources in property files (``models/*.yml``:
``models:`` / ``sources:`` / ``seeds:`` / ``snapshots:`` with ``description`` and ``columns``) and
compiles them into ``target/manifest.json`` (``{{ doc(...) }}`` blocks rendered). Either becomes the
``descriptions`` of :class:`~jar_core.retriever.TableRetriever` (``{table: text, "table.column":
text}``), so that they rank like a database's own comments.

* :func:`read_descriptions` reads a JSON mapping, a ``manifest.json``, a property file or a folder
  of them and returns the descriptions of the tables of a schema it finds there;
* :func:`dbt_entries` returns what a dbt file documents, before it is matched to a schema.

A dbt relation is matched to a table by ``schema.name`` (the relation's alias or identifier), then by
its name alone when one table has it; relations and columns not in the schema are left out and
counted (dbt documents staging models that a warehouse user may not read), an empty description
never replaces a source's comment. A plain JSON mapping is taken as written: a name that is no
table is an error, as it is for ``TableRetriever(descriptions=...)``.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from jar_core.errors import SourceError, UnknownDatabaseError
from jar_core.schema import Schema, Table

__all__ = ["DbtRelation", "dbt_entries", "read_descriptions"]

log = logging.getLogger(__name__)

#: The kinds of dbt nodes that are relations in the warehouse (tests, macros and analyses are not).
RELATION_NODES = ("model", "seed", "snapshot")
#: The largest file read (a manifest of a few thousand models is tens of MB).
MAX_FILE_BYTES = 512 * 1024 * 1024
_DOC_REF = re.compile(r"""\{\{\s*doc\(\s*(?:['"][^'"]*['"]\s*,\s*)?['"]([^'"]+)['"]\s*\)\s*\}\}""")
_DOC_BLOCK = re.compile(r"\{%-?\s*docs\s+([A-Za-z0-9_]+)\s*-?%\}(.*?)\{%-?\s*enddocs\s*-?%\}", re.S)


@dataclass
class DbtRelation:
    """One relation a dbt project documents: its warehouse schema (``None`` when the file does not
    say), its name in the warehouse (alias or identifier), its description and its columns'."""

    name: str
    schema: str | None = None
    description: str = ""
    columns: dict[str, str] = field(default_factory=dict)


def read_descriptions(path: str | Path, schema: Schema) -> dict[str, str]:
    """The descriptions in ``path`` of ``schema``'s tables and columns, as ``TableRetriever(descriptions=...)`` takes them.

    ``path``: a dbt ``manifest.json``, a dbt property file (``.yml`` / ``.yaml``, needs PyYAML), a
    folder (its ``target/manifest.json`` when there is one, else every property file under it), or a
    JSON mapping ``{table: text, "table.column": text}``. Raises :class:`SourceError` for a file that
    cannot be read or is none of these, and :class:`UnknownDatabaseError` when a dbt file documents
    no table of ``schema`` (the wrong schema or database was read).
    """
    p = Path(path)
    if p.is_file() and p.suffix.lower() == ".json":
        data = _read_json(p)
        if not _is_manifest(data):
            return _plain_mapping(p, data)
        relations = _manifest_relations(p, data)
    else:
        relations = dbt_entries(p)
    return _matched(p, relations, schema)


def dbt_entries(path: str | Path) -> list[DbtRelation]:
    """The relations a dbt ``manifest.json``, property file or project folder documents (unmatched)."""
    p = Path(path)
    if p.is_dir():
        manifest = p / "target" / "manifest.json"
        if manifest.is_file():
            return _manifest_relations(manifest, _read_json(manifest))
        files = sorted(f for f in p.rglob("*") if f.suffix.lower() in (".yml", ".yaml") and f.is_file()
                       and not {"target", "dbt_packages", "logs"} & set(f.relative_to(p).parts[:-1]))
        docs = _doc_blocks(f for f in p.rglob("*.md") if f.is_file())
        relations = [r for f in files for r in _property_relations(f, docs)]
        if not relations:
            raise SourceError(f"{p}: no dbt manifest (target/manifest.json) and no property file documenting a model "
                              "or source under it")
        return relations
    if not p.is_file():
        raise SourceError(f"descriptions file {str(p)!r} does not exist")
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        if not _is_manifest(data):
            raise SourceError(f"{p} is not a dbt manifest (no 'nodes' and 'sources')")
        return _manifest_relations(p, data)
    if p.suffix.lower() in (".yml", ".yaml"):
        return _property_relations(p, _doc_blocks(f for f in p.parent.glob("*.md") if f.is_file()))
    raise SourceError(f"{p}: expected a dbt manifest.json, a dbt .yml property file, a folder or a JSON mapping")


# -- reading ----------------------------------------------------------------------------------
def _read_text(p: Path) -> str:
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise SourceError(f"{p} is larger than {MAX_FILE_BYTES // 2**20} MiB")
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SourceError(f"cannot read {p}: {e}") from e


def _read_json(p: Path) -> Any:
    try:
        return json.loads(_read_text(p))
    except json.JSONDecodeError as e:
        raise SourceError(f"{p} is not valid JSON: {e}") from e


def _is_manifest(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("nodes"), dict) and isinstance(data.get("sources", {}), dict)


def _plain_mapping(p: Path, data: Any) -> dict[str, str]:
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise SourceError(f'{p}: expected a dbt manifest or a JSON object {{"table": "text", "table.column": "text"}}')
    return dict(data)


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _columns(value: Any) -> dict[str, str]:
    """A dbt ``columns`` entry (a manifest's mapping or a property file's list) as ``{name: text}``."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    out: dict[str, str] = {}
    for c in items:
        if isinstance(c, dict) and isinstance(c.get("name"), str) and _text(c.get("description")):
            out[c["name"]] = _text(c["description"])
    return out


def _manifest_relations(p: Path, data: Mapping[str, Any]) -> list[DbtRelation]:
    out = []
    for node in data.get("nodes", {}).values():
        if isinstance(node, dict) and node.get("resource_type") in RELATION_NODES and isinstance(node.get("name"), str):
            name = node.get("alias") if isinstance(node.get("alias"), str) and node.get("alias") else node["name"]
            out.append(DbtRelation(name, node.get("schema") if isinstance(node.get("schema"), str) else None,
                                   _text(node.get("description")), _columns(node.get("columns"))))
    for src in data.get("sources", {}).values():
        if isinstance(src, dict) and isinstance(src.get("name"), str):
            name = src.get("identifier") if isinstance(src.get("identifier"), str) and src.get("identifier") else src["name"]
            out.append(DbtRelation(name, src.get("schema") if isinstance(src.get("schema"), str) else None,
                                   _text(src.get("description")), _columns(src.get("columns"))))
    if not out:
        raise SourceError(f"{p}: the dbt manifest documents no model, seed, snapshot or source")
    return out


def _doc_blocks(files: Iterable[Path]) -> dict[str, str]:
    """The ``{% docs name %}...{% enddocs %}`` blocks of a project's Markdown files."""
    return {m.group(1): m.group(2).strip() for f in sorted(files) for m in _DOC_BLOCK.finditer(_read_text(f))}


def _property_relations(p: Path, docs: Mapping[str, str]) -> list[DbtRelation]:
    try:
        import yaml
    except ImportError as e:  # pragma: no cover - PyYAML comes with the dbt extra
        raise SourceError("reading dbt property files needs PyYAML (pip install 'jar-retrieval[dbt]'), "
                          "or pass the project's target/manifest.json") from e
    try:
        data = yaml.safe_load(_read_text(p))
    except yaml.YAMLError as e:
        raise SourceError(f"{p} is not valid YAML: {str(e).splitlines()[0]}") from e
    if data is None:
        return []
    if not isinstance(data, dict):
        raise SourceError(f"{p}: a dbt property file is a mapping (version: 2, models: ...)")

    def rendered(text: Any) -> str:
        return _text(_DOC_REF.sub(lambda m: docs.get(m.group(1), ""), text)) if isinstance(text, str) else ""

    def cols(value: Any) -> dict[str, str]:
        listed = [dict(c, description=rendered(c.get("description"))) for c in value or [] if isinstance(c, dict)]
        return _columns(listed)

    out = []
    for kind in ("models", "seeds", "snapshots"):
        for m in data.get(kind) or []:
            if isinstance(m, dict) and isinstance(m.get("name"), str):
                config = m.get("config") if isinstance(m.get("config"), dict) else {}
                name = config.get("alias") if isinstance(config.get("alias"), str) else m["name"]
                schema = config.get("schema") if isinstance(config.get("schema"), str) else None
                out.append(DbtRelation(name, schema, rendered(m.get("description")), cols(m.get("columns"))))
    for s in data.get("sources") or []:
        if not (isinstance(s, dict) and isinstance(s.get("name"), str)):
            continue
        schema = s.get("schema") if isinstance(s.get("schema"), str) else s["name"]
        for t in s.get("tables") or []:
            if isinstance(t, dict) and isinstance(t.get("name"), str):
                name = t.get("identifier") if isinstance(t.get("identifier"), str) else t["name"]
                out.append(DbtRelation(name, schema, rendered(t.get("description")), cols(t.get("columns"))))
    return out


# -- matching ---------------------------------------------------------------------------------
def _table_of(relation: DbtRelation, schema: Schema) -> Table | None:
    names = ([f"{relation.schema}.{relation.name}"] if relation.schema else []) + [relation.name]
    for name in names:
        try:
            table = schema.find(name)
        except UnknownDatabaseError:  # the bare name is ambiguous: the schema-qualified one was not found
            table = None
        if table is not None:
            return table
    return None


def _matched(p: Path, relations: list[DbtRelation], schema: Schema) -> dict[str, str]:
    out: dict[str, str] = {}
    missing_tables: list[str] = []
    missing_columns = 0
    for r in relations:
        table = _table_of(r, schema)
        if table is None:
            missing_tables.append(f"{r.schema}.{r.name}" if r.schema else r.name)
            continue
        if r.description:
            out[table.id] = r.description
        by_lower = {c.name.lower(): c.name for c in table.columns}
        for column, text in r.columns.items():
            name = by_lower.get(column.lower())
            if name is None:
                missing_columns += 1
            else:
                out[f"{table.id}.{name}"] = text
    documented = len(relations) - len(missing_tables)
    if not documented:
        shown = ", ".join(missing_tables[:5]) + (", ..." if len(missing_tables) > 5 else "")
        raise UnknownDatabaseError(f"{p} documents {len(relations)} relation(s), none a table of the schema read "
                                   f"({shown}); read the warehouse schema dbt builds into (--schema)")
    if missing_tables or missing_columns:
        log.warning("%s: %d of %d documented relation(s) and %d column(s) are not in the schema read; left out "
                    "(e.g. %s)", p, len(missing_tables), len(relations), missing_columns,
                    ", ".join(missing_tables[:3]) or "columns only")
    if not out:
        raise SourceError(f"{p}: the {documented} relation(s) it shares with the schema have no description")
    return out
