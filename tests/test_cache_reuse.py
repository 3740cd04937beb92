"""The command's index cache: a changed description re-embeds that table's texts only
(jar_core.cli.arguments.load_cached_index, jar_core.index.store.last_cached)."""
from __future__ import annotations

from helpers import BagOfWordsEmbedder

from jar_core.cli.arguments import cache_path, load_cached_index
from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever

DDL = """
CREATE TABLE t_inv (id INTEGER PRIMARY KEY, amt REAL, dt TEXT);
CREATE TABLE t_x20 (id INTEGER PRIMARY KEY, inv_id INTEGER, code TEXT);
CREATE TABLE t_ppl (id INTEGER PRIMARY KEY, nm TEXT);
"""


def _retriever(comment: str) -> TableRetriever:
    ddl = DDL + f"COMMENT ON TABLE t_x20 IS '{comment}';"
    return TableRetriever(load_ddl(ddl, dialect="postgres"), embedder=BagOfWordsEmbedder())


def test_a_changed_description_re_embeds_that_table_only(tmp_path, monkeypatch):
    monkeypatch.setenv("JAR_RETRIEVAL_CACHE", str(tmp_path))
    first = _retriever("Adverse events")
    load_cached_index(first)
    assert first.index.report is not None and first.index.report.reused == 0
    everything = first.index.report.embedded
    second = _retriever("Adverse drug events reported by patients")
    assert cache_path(second) != cache_path(first)  # another schema: another cache entry
    load_cached_index(second)
    report = second.index.report
    assert report is not None and report.changed == ("main.t_x20",)
    assert 0 < report.embedded < everything / 2 and report.reused > 0  # the other tables' texts reused
    # the third run loads the second's entry as it is
    third = _retriever("Adverse drug events reported by patients")
    load_cached_index(third)
    assert third.index.report is None or third.index.report.embedded == 0


def test_an_unreadable_previous_index_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("JAR_RETRIEVAL_CACHE", str(tmp_path))
    first = _retriever("Adverse events")
    load_cached_index(first)
    for f in cache_path(first).iterdir():  # the entry the next run would reuse is damaged
        f.write_bytes(b"garbage")
    second = _retriever("Adverse drug events")
    load_cached_index(second)  # builds from scratch, no error
    assert second.index.report is not None and second.index.report.reused == 0
    assert second.retrieve("adverse drug events", k=1).table_names == ["t_x20"]
