"""scripts/suite/learned_joins.py: candidate pairs, labels and the judging of a scorer's joins."""
import pytest

from jar_core.loaders import load_benchmark

from tests.helpers import BagOfWordsEmbedder, load_script
from tests.test_convert_spider_train import _release

pytest.importorskip("sklearn")
convert = load_script("suite/convert_spider_train")
learned = load_script("suite/learned_joins")


@pytest.fixture
def candidates(tmp_path):
    out = tmp_path / "suite"
    assert convert.main(["--spider", str(_release(tmp_path)), "--out", str(out)]) == 0
    keys = learned.declared_keys(load_benchmark(out / "spider_train").schema)
    return learned.Candidates(out / "spider_train_nokeys", keys, BagOfWordsEmbedder())


def test_declared_keys_are_the_positive_candidates_read_without_keys(candidates):
    c = candidates
    assert len(c.keys) == 2  # orders.customer_id -> customer.id, Enrolment.StuID -> Student.StuID
    assert c.X.shape == (len(c.rows), len(learned.FEATURES))
    assert {row for row, label in zip(c.rows, c.y) if label} == c.keys
    assert c.groups.tolist().count("spider_train_nokeys/shop") > 0


def test_a_scorer_is_judged_by_table_pair_against_the_declared_keys(candidates):
    c = candidates
    right = [(frozenset(k), 0.9) for k in c.keys]
    assert c.judge(right, 0.5) == {"shown": 2, "right": 2, "declared": 2, "held": 2}
    assert c.judge(right, 0.95)["shown"] == 0  # below the threshold: not shown
    # a wrong column pair between the same two tables, scored higher, is the one shown: wrong
    key = next(k for k in c.keys if c.table[k[0]] != c.table[k[1]])
    wrong = next((f, k) for f, k in c.rows if {int(c.table[f]), int(c.table[k])} == {int(c.table[key[0]]), int(c.table[key[1]])}
                 and frozenset((f, k)) not in {frozenset(k) for k in c.keys})
    got = c.judge([*right, (frozenset(wrong), 0.99)], 0.5)
    assert got["shown"] == 2 and got["right"] == 1 and got["held"] == 1


def test_one_benchmark_is_too_few_to_leave_one_out(candidates, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        learned.main([str(tmp_path / "suite" / "spider_train_nokeys")])
    assert e.value.code == 2
    assert "two or more _nokeys folders" in capsys.readouterr().err
