"""Rule 2's value inclusion and rule 3's value support (jar_core.joins.inclusion, value_support)."""
from __future__ import annotations

import pytest

from jar_core.joins.uncertain import MAX_VALUE_TIES
from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges, ints


def test_surrogate_keys_do_not_join_on_their_values():
    one_to_ten = ints(*range(1, 11))
    s = Schema([
        T("Customer", Column("CustomerId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten),
          Column("SupportLevelId", "int", sample=ints(3, 4, 5))),
        T("Artist", Column("ArtistId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten)),
        T("Employee", Column("EmployeeId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten)),
    ])
    got = edges(s)
    assert "Artist.ArtistId = Customer.CustomerId" not in got
    assert "Artist.ArtistId = Employee.EmployeeId" not in got
    # a key-named referencing column whose values lie inside one key: an inclusion join, but the
    # three keys hold the same values, so it is tied between them and flagged as weak
    assert all(v[1] == "inclusion" for k, v in got.items() if "SupportLevelId" in k)
    # a person's role names its table of people, whatever the values (Chinook's SupportRepId)
    rep = Schema([T("Customer", *s.tables[0].columns[:1], Column("SupportRepId", "int", sample=ints(3, 4, 5))),
                  *s.tables[1:]])
    assert {k: v for k, v in edges(rep).items() if "SupportRepId" in k} == {
        "Customer.SupportRepId = Employee.EmployeeId": (0.84, "person")}  # values inside: + 0.04


@pytest.mark.parametrize(
    "ref_values,joined",
    [((1, 2, 3, 4), True), ((1, 2, 50, 60), False), ((1, 1), False)],  # inclusion / overlap / too few values
)
def test_value_inclusion_is_directional(ref_values, joined):
    s = Schema([
        T("person", Column("id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 11)))),
        T("friendship", Column("buddy_ref_id", "int", unique_ratio=0.5, sample=ref_values)),
    ])
    got = edges(s)
    assert ("friendship.buddy_ref_id = person.id" in got) is joined
    if joined:
        assert got["friendship.buddy_ref_id = person.id"][1] == "inclusion"


def test_values_alone_that_fit_many_keys_join_nothing():
    # Chinook: SupportRepId holds 3, 4, 5, which every serial id of the database holds too (here a
    # name that no rule reads, so that the values alone speak)
    def entity(name: str) -> Table:
        return T(name, Column(f"{name}_id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 9))),
                 Column("label", "text"))

    rep = T("customer", Column("customer_id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 9))),
            Column("support_rep_ref_id", "int", unique_ratio=0.4, sample=ints(3, 4, 5)))
    few = [entity(n) for n in ("employee", "album")]
    many = [entity(n) for n in ("employee", "album", "genre", "artist")]
    got_few = edges(Schema([rep, *few]))
    assert sum("support_rep" in e for e in got_few) == len(few) <= MAX_VALUE_TIES
    assert all(got_few[e][1] == "inclusion" for e in got_few if "support_rep" in e)
    assert not any("support_rep" in e for e in edges(Schema([rep, *many])))
