"""The ``person`` naming rule of the join graph (rule 2, METHOD.md, the join graph): a person named
by a role references the table of people of its database.

======  ======================================================  ==========  =============================================
rule    evidence                                                confidence  example
======  ======================================================  ==========  =============================================
person  a role word and a key word (``SupportRepId``), or       0.80        ``Customer.SupportRepId`` ->
        ``<verb>ed by``; one table of people in the database                ``Employee.EmployeeId``, ``created_by`` ->
                                                                            ``users.id``
======  ======================================================  ==========  =============================================

Times :data:`~.naming.NO_KEY_WORD` for a name without a key word, as every naming rule.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.name_facts import is_archive
from jar_core.joins.naming import rule_edges
from jar_core.joins.profile import ColumnProfile

__all__ = ["person_roles", "of_people", "PERSON_WORDS", "PERSON_ROLE_WORDS"]


#: Words of a table name that say its rows are people; in Spanish, Portuguese, Italian and French
#: too, each as :func:`~.profile.words` reads the singular and the plural (``trabajadores``:
#: ``trabajadore``; Italian ``dipendenti``).
PERSON_WORDS = frozenset({
    "employee", "emp", "staff", "person", "people", "user", "worker", "member", "agent",
    "empleado", "empregado", "funcionario", "trabajador", "trabajadore", "trabalhador", "trabalhadore",
    "usuario", "persona", "pessoa", "personne", "utilisateur", "utente", "utenti", "dipendente", "dipendenti",
    "impiegato", "impiegati", "persone", "miembro", "membro", "membri", "membre", "employe",
})


#: Last words of a column that names a person by a role (``SupportRepId``, ``account_manager_id``,
#: ``assignee_id``): it references the one table of people of its database.
PERSON_ROLE_WORDS = frozenset({
    "rep", "representative", "manager", "mgr", "supervisor", "salesperson", "salesman", "agent", "assignee",
    "reviewer", "approver", "author", "creator", "owner", "clerk", "cashier", "operator", "handler",
    # an application's users by what they did to a row (``creator_id``, ``updater_id``, ``inviter_id``)
    "updater", "modifier", "editor", "uploader", "submitter", "poster", "commenter", "reporter", "requester",
    "requestor", "moderator", "verifier", "voter", "follower", "subscriber", "inviter", "invitee", "sender",
    "recipient", "receiver", "granter", "grantor", "revoker", "signer", "signatory", "issuer", "assigner",
    "exporter", "importer", "inspector", "auditor", "archiver", "deleter",
    # people by their office (``medical_officer_id``, ``staff_id``, ``admin_id``)
    "officer", "staff", "admin", "administrator", "coordinator",
    # Spanish, Portuguese, Italian, French (``area.id_jefe``, ``cliente.id_vendedor``)
    "jefe", "chefe", "capo", "gerente", "responsable", "responsabile", "vendedor", "venditore", "vendeur",
    "autor", "autore", "auteur", "creador", "criador", "creatore", "createur",
})


def of_people(table_words: list[list[str]]) -> bool:
    """Whether a table whose names are ``table_words`` holds people: one of its names ends with a
    word of :data:`PERSON_WORDS` (``users``, ``SalesPerson``, ``team_members``). A table named
    after people by a word before its head noun holds other things (``user_blocks``,
    ``employee_territories``), so it is no second table of people."""
    return any(tw and tw[-1] in PERSON_WORDS for tw in table_words)


def _of_rows_of(table_words: list[list[str]], tables: set[str]) -> bool:
    """Whether a table of people (:func:`of_people`) is named by another table of its database
    (``tables``: their whole names) and then its person word: ``relation_members``,
    ``team_members``, ``project_users`` with ``relations``, ``teams``, ``projects`` beside them.
    Its rows are the people (or members) of that table's rows, a link or a part of that table,
    not the database's table of people."""
    whole = table_words[0] if table_words else []
    return len(whole) > 1 and "".join(whole[:-1]) in tables


def _names_a_person(stem: list[str], key_word: bool) -> bool:
    """Whether a name's entity words ``stem`` name a person by a role: a role word last and a key
    word after it (``SupportRepId``, ``account_manager_id``; a bare ``AUTHOR`` is a name, not a
    reference) or ``<verb>ed by`` (``created_by``, ``last_modified_by``), with at most one or two
    words before."""
    if not stem or len(stem) > 3:
        return False
    if stem[-1] in PERSON_ROLE_WORDS:
        return key_word
    return len(stem) >= 2 and stem[-1] == "by" and stem[-2].endswith("ed")


def person_roles(p: ColumnProfile) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``person`` rule, ``(f, k, confidence, rule index)`` as :func:`naming`'s: a column that
    names a person by a role (:func:`_names_a_person`: ``SupportRepId``, ``created_by``) references
    the key of the table of people of its database (:func:`of_people`, a name ending with a word
    of :data:`PERSON_WORDS`: ``Employee``, ``staff``, ``users``) when there is one such table (see below), keyed by one column,
    the table of people itself too (``People.LastEditedBy``: whoever last edited a person's row is
    one of the people; a row's manager there is also the ``self`` rule's).
    A table named by another table of its database and a person word (``relation_members`` beside
    ``relations``) holds the people of that table's rows and is none of them (:func:`_of_rows_of`).
    Of several tables of people, the one named by a person word alone (``users`` beside
    ``machine_users``, ``gatekeeper_workers``) is meant; with several such (``Person``,
    ``Employee`` beside ``SalesPerson``) nothing tells which
    one is meant, so there is no join. Weaker than a name that names its table: rule 6 prefers
    ``dogs.owner_id`` -> ``owners`` to the table of people."""
    named: dict[tuple[int, bool], bool] = {}
    found = []
    for i in range(p.n):
        kw = bool(p.has_key_word[i])
        hit = named.get((id(p.stems[i]), kw))
        if hit is None:
            hit = named[(id(p.stems[i]), kw)] = any(_names_a_person(s, kw) for s in p.stems[i])
        if hit and not p.own_key[i] and not p.name_flag[i]:
            found.append(i)
    pairs: list[tuple[int, int]] = []
    if not found:
        return rule_edges(p, pairs, "person")
    scopes = set(p.database[found].tolist())
    in_scope = np.isin(p.database, list(scopes))
    # the tables of each scope by their whole names, for the people of another table's rows
    tables: dict[int, set[str]] = {}
    for i in np.flatnonzero(in_scope).tolist():
        if p.table_names[i]:
            tables.setdefault(int(p.database[i]), set()).add(p.table_names[i][0])
    keys: dict[int, dict[int, list[int]]] = {}  # scope -> table of people -> its own keys
    for i in np.flatnonzero(p.own_key & in_scope).tolist():
        # an archive of people (``People_Archive``: past versions of ``People``'s rows) is no other table of them
        if (of_people(p.table_words[i]) and not is_archive(p.table_words[i])
                and not _of_rows_of(p.table_words[i], tables[int(p.database[i])])):
            keys.setdefault(int(p.database[i]), {}).setdefault(int(p.table[i]), []).append(i)
    for scope, people in keys.items():
        if len(people) > 1:  # ``users`` beside ``machine_users``: the one named by a person word alone
            plain = {t: own for t, own in people.items() if len(p.table_words[own[0]][0]) == 1}
            if len(plain) == 1:
                keys[scope] = plain
    for fi in found:
        people = keys.get(int(p.database[fi]), {})
        if len(people) == 1:
            (table, own), = people.items()
            if len(own) == 1 and own[0] != fi:
                pairs.append((fi, own[0]))
    return rule_edges(p, pairs, "person")
