"""Shared parts of the suite's converters: check gold SQL, sample questions, write a benchmark folder.

A converter reads a public repository, builds ``dev.json`` items (question, sql, db_id) and a
``dev_tables.json`` mapping in the layout of ``../shared/benchmarks/README.md``, then calls
:func:`write_benchmark`, which

* checks that every gold SQL parses with sqlglot in the declared dialect and that every table it
  names is a table of its database (the library's gold extractor,
  :func:`jar_core.eval.gold.extract_gold_tables`, the one ``jar-retrieval eval`` uses), and drops
  the questions that fail, counting why;
* keeps at most ``limit`` questions, chosen deterministically by :func:`sample`;
* writes ``dev.json``, ``dev_tables.json``, ``benchmark.json`` and, when any key is declared, a
  ``<name>_nokeys`` twin with every primary and foreign key removed;
* prints the counts (questions, multi-table questions, tables, databases, dropped) on stdout.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import sqlglot
from sqlglot.errors import SqlglotError

SEP = "#sep#"
#: Where the converters write when ``--out`` is not given (outside the repository: data is not committed).
DEFAULT_SUITE = Path("/work/suite")
#: Questions kept per benchmark at most.
DEFAULT_LIMIT = 500


def table_id(db_id: str, table: str) -> str:
    """``"<db_id>#sep#<table>"``, the folder layout's table id."""
    return f"{db_id}{SEP}{table}"


def table_entry(
    db_id: str,
    name: str,
    columns: Sequence[str],
    types: Sequence[str],
    *,
    primary_key: Sequence[str] = (),
    foreign_keys: Iterable[tuple[str, str, str]] = (),
    column_names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One ``dev_tables.json`` entry; ``foreign_keys`` as (column, referenced table name, referenced column)."""
    entry: dict[str, Any] = {
        "db_id": db_id,
        "table_name_original": name,
        "column_names_original": list(columns),
        "column_types": list(types),
    }
    if column_names is not None:
        entry["column_names"] = list(column_names)
    entry["primary_key"] = list(primary_key)
    entry["foreign_key"] = [
        {"column_name": c, "referenced_table_name": table_id(db_id, rt), "referenced_column_name": rc}
        for c, rt, rc in foreign_keys
    ]
    return entry


class GitSource:
    """Files of a repository given as a bare git directory (``fetch``'s mirror) or a checkout."""

    def __init__(self, repo: str | Path) -> None:
        self.path = Path(repo)
        if not self.path.exists():
            raise SystemExit(f"--repo {repo}: does not exist")
        self.bare = not (self.path / ".git").exists() and (self.path / "HEAD").is_file() and (self.path / "objects").is_dir()

    def read(self, path: str) -> str:
        """The text of ``path`` (at HEAD for a bare directory)."""
        if not self.bare:
            return (self.path / path).read_text(encoding="utf-8")
        out = subprocess.run(["git", "--git-dir", str(self.path), "show", f"HEAD:{path}"],
                             capture_output=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"{self.path}: cannot read {path}: {out.stderr.decode(errors='replace').strip()}")
        return out.stdout.decode("utf-8")

    def commit(self) -> str:
        """The commit read (``unknown`` for a plain folder)."""
        args = ["git", "--git-dir", str(self.path)] if self.bare else ["git", "-C", str(self.path)]
        out = subprocess.run([*args, "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
        return out.stdout.strip() if out.returncode == 0 else "unknown"


@dataclass
class Checked:
    """Questions that passed the checks, with their gold tables, and the dropped counts by reason."""

    items: list[dict[str, Any]] = field(default_factory=list)
    gold: list[list[str]] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)


def check_questions(items: Iterable[dict[str, Any]], tables: dict[str, dict[str, Any]], dialect: str) -> Checked:
    """Keep the questions whose gold SQL parses in ``dialect`` and names only tables of its database."""
    from jar_core.eval.gold import GoldSQLError, extract_gold_tables

    by_db: dict[str, list[str]] = {}
    for t in tables.values():
        by_db.setdefault(t["db_id"], []).append(t["table_name_original"])
    out = Checked()
    for item in items:
        sql = item["sql"]
        try:
            parsed = sqlglot.parse(sql, read=dialect)
        except SqlglotError:
            out.dropped["gold SQL does not parse"] += 1
            continue
        if len([p for p in parsed if p is not None]) != 1:
            out.dropped["gold SQL is not one statement"] += 1
            continue
        try:
            named = extract_gold_tables(sql, dialect=dialect)
            gold = extract_gold_tables(sql, dialect=dialect, tables=by_db.get(item["db_id"], []))
        except GoldSQLError:
            out.dropped["gold SQL does not parse"] += 1
            continue
        if not gold or len(named) != len(gold):
            out.dropped["gold SQL names a table not in the schema"] += 1
            continue
        out.items.append(item)
        out.gold.append(gold)
    return out


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def sample(checked: Checked, limit: int, group: Sequence[str] | None = None) -> list[int]:
    """Positions of at most ``limit`` questions, in their original order.

    Deterministic: multi-table questions first, then one question per ``group`` (the same gold
    query paraphrased) before a second of the same group, then by a hash of question and SQL.
    """
    seen: Counter = Counter()
    keys = []
    for i, item in enumerate(checked.items):
        g = group[i] if group is not None else str(i)
        rank = seen[g]
        seen[g] += 1
        keys.append((len(checked.gold[i]) < 2, rank, _digest(item["question"] + "\n" + item["sql"]), i))
    return sorted(k[-1] for k in sorted(keys)[:limit])


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def _without_keys(tables: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {tid: {**t, "primary_key": [], "foreign_key": []} for tid, t in tables.items()}


def write_benchmark(
    out: Path,
    name: str,
    *,
    dialect: str,
    source: str,
    items: list[dict[str, Any]],
    tables: dict[str, dict[str, Any]],
    limit: int = DEFAULT_LIMIT,
    group: Sequence[str] | None = None,
    dropped: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Check, sample and write ``out/<name>`` (and ``out/<name>_nokeys``); print and return the counts.

    ``dropped``: questions the converter already left out, by reason (added to the counts).
    """
    checked = check_questions(items, tables, dialect)
    checked.dropped.update(dropped or {})
    groups = None
    if group is not None:
        kept = {id(it): g for it, g in zip(items, group)}
        groups = [kept[id(it)] for it in checked.items]
    chosen = sample(checked, limit, groups)
    dev = [{"question": checked.items[i]["question"], "sql": checked.items[i]["sql"], "db_id": checked.items[i]["db_id"],
            "gold_tables": [table_id(checked.items[i]["db_id"], t) for t in checked.gold[i]]} for i in chosen]
    multi = sum(1 for i in chosen if len(checked.gold[i]) >= 2)
    has_keys = any(t.get("primary_key") or t.get("foreign_key") for t in tables.values())
    counts = {
        "name": name,
        "source_questions": len(items) + sum((dropped or {}).values()),
        "valid_questions": len(checked.items),
        "questions": len(dev),
        "multi_table_questions": multi,
        "tables": len(tables),
        "databases": len({t["db_id"] for t in tables.values()}),
        "primary_keys": sum(1 for t in tables.values() if t.get("primary_key")),
        "foreign_keys": sum(len(t.get("foreign_key") or []) for t in tables.values()),
        "dropped": dict(sorted(checked.dropped.items())),
        "nokeys_twin": has_keys,
    }
    twins = [(name, tables)] + ([(f"{name}_nokeys", _without_keys(tables))] if has_keys else [])
    for folder_name, folder_tables in twins:
        folder = out / folder_name
        folder.mkdir(parents=True, exist_ok=True)
        note = "" if folder_name == name else " Every primary and foreign key removed."
        _write_json(folder / "dev.json", dev)
        _write_json(folder / "dev_tables.json", folder_tables)
        _write_json(folder / "benchmark.json", {"name": folder_name, "dialect": dialect, "source": source + note})
    dropped = ", ".join(f"{n} {why}" for why, n in counts["dropped"].items()) or "none"
    print(f"{name}: {counts['questions']} questions ({multi} multi-table) of {counts['valid_questions']} valid / "
          f"{counts['source_questions']} in the source; {counts['tables']} tables in {counts['databases']} database(s); "
          f"{counts['primary_keys']} primary keys, {counts['foreign_keys']} foreign keys; dropped: {dropped}"
          + (f"; twin {name}_nokeys" if has_keys else ""), flush=True)
    return counts


def progress(msg: str) -> None:
    """A progress line on stderr."""
    print(msg, file=sys.stderr, flush=True)
