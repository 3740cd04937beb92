"""scripts/suite/convert_spider_train.py: Spider's train databases as a suite folder and its twin without keys."""
import json
import subprocess

import pytest

from jar_core.loaders import load_benchmark
from tests.helpers import load_script
from tests.test_spider_layout import DATABASES, QUESTIONS

convert = load_script("suite/convert_spider_train")

UNUSED = {**DATABASES[0], "db_id": "dev_only"}  # a database no train question asks of (a dev one)


def _release(tmp_path):
    folder = tmp_path / "spider"
    folder.mkdir()
    (folder / "tables.json").write_text(json.dumps([*DATABASES, UNUSED]))
    (folder / "train_spider.json").write_text(json.dumps(
        [{"db_id": q["db_id"], "question": q["question"], "query": q.get("SQL", q.get("query"))} for q in QUESTIONS]))
    return folder


def test_the_databases_asked_of_are_written_with_their_keys_and_a_twin_without(tmp_path, capsys):
    assert convert.main(["--spider", str(_release(tmp_path)), "--out", str(tmp_path / "suite")]) == 0
    assert "2 questions (2 multi-table)" in capsys.readouterr().out
    keyed = load_benchmark(tmp_path / "suite" / "spider_train")
    assert {t.database for t in keyed.schema.tables} == {"shop", "school"}  # not dev_only
    orders = next(t for t in keyed.schema.tables if t.name == "orders")
    assert orders.foreign_keys[0].ref_table == "shop.customer"
    twin = load_benchmark(tmp_path / "suite" / "spider_train_nokeys")
    assert not any(t.foreign_keys or t.primary_key for t in twin.schema.tables)
    assert [q.question for q in twin.questions] == [q.question for q in keyed.questions]


def test_two_repositories_carrying_the_files_are_read_at_head(tmp_path):
    release = _release(tmp_path)
    repos = {}
    for name, src, dest in (("tables", "tables.json", "data/spider/original/tables.json"),
                            ("questions", "train_spider.json", "data/spider/train.json")):
        repo = tmp_path / name
        (repo / dest).parent.mkdir(parents=True)
        (repo / dest).write_text((release / src).read_text())
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-qm", "data"], check=True)
        repos[name] = repo
    out = tmp_path / "suite"
    assert convert.main(["--tables-repo", str(repos["tables"]), "--questions-repo", str(repos["questions"]),
                         "--out", str(out)]) == 0
    meta = json.loads((out / "spider_train" / "benchmark.json").read_text())
    assert "data/spider/original/tables.json of tables at" in meta["source"]


@pytest.mark.parametrize("args, message", [
    ([], "give --spider, or both --tables-repo and --questions-repo"),
    (["--spider", "/nonexistent/spider"], "not a folder"),
])
def test_missing_sources_are_named(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        convert.main(args)
    assert e.value.code != 0
    err = capsys.readouterr().err
    assert message in (err or str(e.value.code))


def test_a_file_not_in_spiders_layout_is_one_line(tmp_path):
    folder = _release(tmp_path)
    (folder / "train_spider.json").write_text(json.dumps([{"question": "q", "db_id": "shop"}]))
    with pytest.raises(SystemExit) as e:
        convert.main(["--spider", str(folder), "--out", str(tmp_path / "suite")])
    assert str(e.value.code) == "convert_spider_train: question 0 has no SQL or query"
