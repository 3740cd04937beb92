#!/usr/bin/env python3
"""Inferred join keys on schemas no one here wrote, against the keys they declare.

Each source is read with its declared keys, which are the truth; then its foreign keys are
removed (``primary``: primary keys and unique columns stay, as in databases that declare keys
but no references; ``none``: those removed too, as ``dbgen`` writes TPC-H) and the join graph is inferred
from what is left (:func:`jar_core.joins.graph.build_join_graph`). An inferred join counts as
right when it joins the two columns of a declared foreign key (either direction); precision and
recall are over column pairs, for every inferred join and for those of confidence >= 0.75 (the
direct joins: rule 7's uncertain joins and the siblings are below it). ``--list`` prints each
wrong and each missed join.

A join the schema's authors did not declare is counted wrong even when it is a real join
(Sakila's ``film_text.film_id`` -> ``film.film_id``, a 1:1 table kept by triggers; TPC-DS's
``web_page.wp_customer_sk`` -> ``customer``): read the ``--list`` output before the figure.
The ``implied`` precision also counts as right a join of two columns that the declared keys
make equal through other columns: two references of one key (``orders.customer_id =
invoices.customer_id``), or a reference of a key that itself references another
(``emailaddress.businessentityid -> businessentity`` through ``person``). Such a join is true of
every row; whether a question wants it is another matter, so both figures are printed.

Sources: a ``.sql`` DDL file (``path.sql:dialect``, sqlglot's dialect name) or a database URL
(its sample values then count, as for a live database). A database made without keys takes them
from a DDL file: ``URL=path.sql[:dialect]`` scores the joins inferred from the database's columns
and values against the DDL's foreign keys (``primary``: with the DDL's primary keys added), as for
DuckDB's generated TPC-H and TPC-DS (``CALL dbgen(sf=0.01)`` / ``CALL dsdgen(sf=0.01)`` of its
``tpch`` / ``tpcds`` extensions, which declare no keys). The figures in docs/results.md are for
the DDL files of public repositories, fetched separately (not shipped here):

* Chinook: ``ChinookDatabase/DataSources/Chinook_Sqlite.sql`` of ``lerocha/chinook-database``
  (and a SQLite database made from it: ``sqlite3 chinook.db < Chinook_Sqlite.sql``);
* Sakila: ``mysql-sakila-db/mysql-sakila-schema.sql`` of ``jOOQ/sakila``;
* Northwind: ``northwind.sql`` of ``pthom/northwind_psql``;
* TPC-H: ``dss.ddl`` and ``dss.ri`` of ``electrum/tpch-dbgen``, concatenated (``dss.ri``'s DB2
  forms, ``ALTER TABLE TPCD.NATION ADD FOREIGN KEY NATION_FK1 (...)``, are read as they are; for a
  version that cannot read them, ``sed -E -e 's/TPCD\\.//g' -e 's/ADD FOREIGN KEY ([A-Z_0-9]+) \\(/ADD
  CONSTRAINT \\1 FOREIGN KEY (/'`` rewrites them to standard SQL, as for the "before" run);
* TPC-DS: ``tools/tpcds.sql`` and ``tools/tpcds_ri.sql`` of ``gregrahn/tpcds-kit``, concatenated.
* held out (read after the rules above were written): MIMIC-III, ``mimic-iii/buildmimic/postgres/
  postgres_create_tables.sql`` and ``postgres_add_constraints.sql`` of ``MIT-LCP/mimic-code``; OMOP
  CDM 5.4, ``inst/ddl/5.4/postgresql/OMOPCDM_postgresql_5.4_{ddl,primary_keys,constraints}.sql`` of
  ``OHDSI/CommonDataModel`` with ``@cdmDatabaseSchema.`` removed; ``employees.sql`` of
  ``datacharmer/test_db``; each concatenated into one file; AdventureWorksDW,
  ``samples/databases/adventure-works/data-warehouse-install-script/instawdbdw.sql`` of
  ``microsoft/sql-server-samples`` (UTF-16, read as it is or after ``iconv -f UTF-16 -t UTF-8``).

    python scripts/join_keys_public.py chinook.sql:sqlite sqlite:///chinook.db sakila.sql:mysql \\
        northwind.sql:postgres tpch.sql tpcds.sql [--list]
    python scripts/join_keys_public.py duckdb:///tpch.duckdb=tpch.sql duckdb:///tpcds.duckdb=tpcds.sql
    python scripts/join_keys_public.py install.sql:postgres

AdventureWorks' ``install.sql`` (of ``lorint/AdventureWorks-for-Postgres``) defines its tables in
five SQL schemas of one database; its joins between schemas are inferred as within one database
(:attr:`jar_core.schema.Table.catalog`).
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jar_core.errors import JarError  # noqa: E402
from jar_core.joins.graph import EVIDENCE, build_join_graph  # noqa: E402
from jar_core.schema import Schema  # noqa: E402

DIRECT = 0.75


def load(source: str) -> tuple[str, Schema, Schema]:
    """``(name, schema, schema with the true keys)`` of a ``path.sql[:dialect]``, a database URL
    or ``URL=path.sql[:dialect]`` (the database's columns and values, the DDL's keys)."""
    url, sep, ddl = source.rpartition("=")
    if sep and "://" in url and ".sql" in ddl:
        _, schema, _ = load(url)
        dname, keys, _ = load(ddl)
        return f"{url.rsplit('/', 1)[-1]} (keys of {dname})", with_keys_of(schema, keys), keys
    if "://" in source:
        from jar_core.loaders import load_database

        schema = load_database(source)
        return source.rsplit("/", 1)[-1], schema, schema
    from jar_core.loaders.ddl import load_ddl

    path, _, dialect = source.partition(":")
    schema = load_ddl(Path(path), dialect=dialect or None)
    return Path(path).name, schema, schema


def with_keys_of(schema: Schema, keys: Schema) -> Schema:
    """``schema`` with the primary keys and unique columns of the same-named columns of ``keys``
    (names case-folded)."""
    pk = {(t.name.lower(), c.name.lower()) for t in keys.tables for c in t.columns if c.primary_key}
    uq = {(t.name.lower(), c.name.lower()) for t in keys.tables for c in t.columns if c.unique}
    return Schema([
        dataclasses.replace(t, columns=[dataclasses.replace(c, primary_key=(t.name.lower(), c.name.lower()) in pk,
                                                            unique=(t.name.lower(), c.name.lower()) in uq)
                                        for c in t.columns])
        for t in schema.tables
    ])


Pair = frozenset  # {(table, column), (table, column)}, lower case


def declared(schema: Schema) -> set[Pair]:
    out = set()
    for t in schema.tables:
        for fk in t.foreign_keys:
            ref = fk.ref_table.split(".", 1)[1].lower()
            for c, rc in zip(fk.columns, fk.ref_columns):
                out.add(Pair([(t.name.lower(), c.lower()), (ref, rc.lower())]))
    return out


def implied(truth: set[Pair]) -> set[Pair]:
    """Every pair of columns that the declared key pairs ``truth`` make equal, directly or
    through other columns (the pairs within each connected set of columns)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    cols = sorted({c for pair in truth for c in pair})
    pos = {c: i for i, c in enumerate(cols)}
    a, b = zip(*(sorted(pair) for pair in truth)) if truth else ((), ())
    edges = coo_matrix(([1] * len(a), ([pos[x] for x in a], [pos[x] for x in b])), shape=(len(cols), len(cols)))
    _, label = connected_components(edges, directed=False)
    groups: dict[int, list[tuple[str, str]]] = {}
    for c, g in zip(cols, label.tolist()):
        groups.setdefault(g, []).append(c)
    return {Pair([x, y]) for members in groups.values() for i, x in enumerate(members) for y in members[i + 1:]}


def stripped(schema: Schema, keep_pk: bool) -> Schema:
    """``schema`` without foreign keys (and without primary keys and unique columns unless ``keep_pk``)."""
    tables = []
    for t in schema.tables:
        cols = t.columns if keep_pk else [dataclasses.replace(c, primary_key=False, unique=False) for c in t.columns]
        tables.append(dataclasses.replace(t, columns=cols, foreign_keys=[]))
    return Schema(tables)


def inferred(schema: Schema) -> dict[Pair, tuple[float, str, str]]:
    """Every inferred join: pair -> (confidence, rule, ``a -> b`` as printed)."""
    g = build_join_graph(schema)
    cols = [(t.name.lower(), c.name.lower()) for t in schema.tables for c in t.columns]
    out: dict[Pair, tuple[float, str, str]] = {}
    for a, b, conf, ev in zip(g.a.tolist(), g.b.tolist(), g.confidence.tolist(), g.evidence.tolist()):
        pair = Pair([cols[a], cols[b]])
        if pair not in out or conf > out[pair][0]:
            out[pair] = (conf, EVIDENCE[ev], f"{'.'.join(cols[a])} -> {'.'.join(cols[b])}")
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sources", nargs="+", help="path.sql[:dialect] or a database URL")
    p.add_argument("--list", action="store_true", help="print every wrong and missed join")
    args = p.parse_args()
    print("| schema | keys left | tables | declared | inferred | precision | implied | recall "
          f"| inferred >= {DIRECT} | precision | implied | recall |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    notes = []
    for source in args.sources:
        try:
            name, schema, keyed = load(source)
        except JarError as err:
            print(f"join_keys_public: {err}", file=sys.stderr)
            return 2
        truth = declared(keyed)
        equal = implied(truth)
        for keep_pk in (True, False):
            edges = inferred(stripped(schema, keep_pk))
            cells = []
            for floor in (0.0, DIRECT):
                got = {e for e, v in edges.items() if v[0] >= floor}
                right, true = len(got & truth), len(got & equal)
                cells += [str(len(got)), f"{100 * right / max(len(got), 1):.1f}", f"{100 * true / max(len(got), 1):.1f}",
                          f"{100 * right / max(len(truth), 1):.1f}"]
            keys = "primary" if keep_pk else "none"
            print(f"| {name} | {keys} | {len(schema.tables)} | {len(truth)} | " + " | ".join(cells) + " |")
            if args.list:
                for e, (conf, rule, text) in sorted(edges.items(), key=lambda x: (-x[1][0], x[1][2])):
                    if e not in truth:
                        what = "implied" if e in equal else "wrong  "
                        notes.append(f"{name} ({keys}): {what} {conf:.2f} {rule:12s} {text}")
                for e in sorted(truth - set(edges), key=sorted):
                    notes.append(f"{name} ({keys}): missed {' = '.join('.'.join(c) for c in sorted(e))}")
    if notes:
        print()
        print("\n".join(notes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
