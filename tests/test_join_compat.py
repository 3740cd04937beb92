"""Join compatibility: the reference pair score and its fallbacks, on a hand-computed example."""
import numpy as np
import pytest

from jar_core.index.schema_index import SchemaIndex
from jar_core.joins.compat import key_likeness, paper_join_compatibility
from jar_core.schema import Column, ForeignKey, Schema, Table

# name vectors chosen by hand: cos(t1.id, t2.t1_id) = 0.6, cos(t1.id, t2.qty) = 0
NAME_VECTORS = np.array([[1, 0], [0, 1], [0.6, 0.8], [0, 1]], dtype=np.float32)


def make_index(samples=True, uniq=True, fk=False) -> SchemaIndex:
    def col(name, typ, u, sample, pk=False):
        return Column(name, typ, primary_key=pk, unique_ratio=u if uniq else None, sample=sample if samples else ())

    t1 = Table("d", "t1", [col("id", "INTEGER", 1.0, (1, 2, 3, 4), pk=True), col("name", "TEXT", 0.5, ("a", "b"))])
    t2 = Table(
        "d", "t2", [col("t1_id", "int", 0.5, (2, 3, 9)), col("qty", "INTEGER", 0.2, (100, 200))],
        foreign_keys=[ForeignKey(("t1_id",), "d.t1", ("id",))] if fk else [],
    )
    s = Schema([t1, t2])
    z = np.zeros((2, 2), dtype=np.float32)
    return SchemaIndex(s, "hand", table_vectors=z, column_vectors=np.zeros((4, 2), np.float32), name_vectors=NAME_VECTORS)


def test_reference_pair_score_with_values_and_uniqueness():
    w, cols, declared = paper_join_compatibility(make_index(), np.array([0, 1]))
    # uniq = max(1.0, 0.5) = 1 ; overlap = |{2,3}| / min(4, 3) = 2/3
    # names: semantic 0.6, exact |{d, t1, id}| / min(3, 4) = 1  -> 0.5*0.6 + 0.5*1 = 0.8
    # score = 1 * (0.5 * 2/3 + 0.5 * 0.8) = 0.73333
    assert w[0, 1] == pytest.approx(0.5 * 2 / 3 + 0.5 * 0.8, abs=1e-6)
    assert w[1, 0] == w[0, 1] and w[0, 0] == 0
    assert tuple(cols[0, 1]) == (0, 0) and tuple(cols[1, 0]) == (0, 0)
    assert not declared[0, 1]


def test_without_samples_the_names_carry_the_score():
    w, _, _ = paper_join_compatibility(make_index(samples=False), np.array([0, 1]))
    assert w[0, 1] == pytest.approx(0.8, abs=1e-6)


def test_without_uniqueness_key_likeness_stands_in():
    w, cols, _ = paper_join_compatibility(make_index(samples=False, uniq=False), np.array([0, 1]))
    # t1.id is the primary key -> 1.0, so the score is unchanged
    assert w[0, 1] == pytest.approx(0.8, abs=1e-6)


def test_declared_foreign_key_is_a_certain_join():
    w, cols, declared = paper_join_compatibility(make_index(fk=True), np.array([1, 0]))
    assert w[0, 1] == pytest.approx(1.0) and declared[0, 1] and declared[1, 0]
    assert tuple(cols[0, 1]) == (0, 0)


def test_type_mismatch_scores_zero():
    idx = make_index()
    idx.schema.tables[1].columns[0].type = "TEXT"  # t2.t1_id now text: only t1.name could match it
    idx._features = None
    w, cols, _ = paper_join_compatibility(idx, np.array([0, 1]))
    # t1.id-t2.t1_id is gone; best is t1.name-t2.t1_id: uniq 0.5, no common values,
    # names 0.5*0.8 + 0.5*(2/3) -> 0.5 * (0.5*0 + 0.5*names) = 0.18333 (beats t1.id-t2.qty's 0.0833)
    assert w[0, 1] == pytest.approx(0.5 * 0.5 * (0.5 * 0.8 + 0.5 * 2 / 3), abs=1e-6)
    assert tuple(cols[0, 1]) == (1, 0)


@pytest.mark.parametrize(
    "table,column,pk,expected",
    [("orders", "id", (), 1.0), ("orders", "order_id", (), 1.0), ("orders", "customer_id", (), 0.7),
     ("orders", "note", (), 0.2), ("x", "code", ("code",), 1.0), ("FCLT_ROOMS", "FCLT_BUILDING_KEY", (), 0.7)],
)
def test_key_likeness(table, column, pk, expected):
    t = Table("d", table, [Column(column, "int", primary_key=column in pk), Column("other", "int")])
    assert key_likeness(t, t.columns[0]) == expected


def test_a_declared_reference_suppresses_inferred_joins_of_that_column():
    from helpers import BagOfWordsEmbedder

    def build(declare):
        a = Table("d", "a", [Column("id", "int", primary_key=True, unique_ratio=1.0, sample=(1, 2, 3))])
        b = Table("d", "b", [Column("id", "int", primary_key=True, unique_ratio=1.0, sample=(1, 2, 3))])
        c = Table(
            "d", "c",
            [Column("a_id", "int", unique_ratio=0.5, sample=(1, 2, 3)), Column("b_id", "int", unique_ratio=0.5, sample=(7, 8))],
            foreign_keys=[ForeignKey(("a_id",), "d.a", ("id",))] if declare else [],
        )
        return SchemaIndex.build(Schema([a, b, c]), BagOfWordsEmbedder())

    # without the declaration, c.a_id's values (1, 2, 3) make it b's best partner too
    _, cols, _ = paper_join_compatibility(build(False), np.array([1, 2]))
    assert tuple(cols[0, 1]) == (0, 0)
    w, cols, declared = paper_join_compatibility(build(True), np.array([0, 1, 2]))
    assert w[0, 2] == 1.0 and declared[0, 2]
    assert tuple(cols[1, 2]) == (0, 1)  # b joins c through c.b_id, not the declared c.a_id
