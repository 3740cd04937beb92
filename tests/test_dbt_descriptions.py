"""Descriptions from a dbt project (``manifest.json``, property files, a project folder) or a JSON
file: matched to the schema's tables, ranked like comments, read by the command's ``--descriptions``."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

from jar_core.errors import SourceError, UnknownDatabaseError
from jar_core.loaders import load_ddl
from jar_core.loaders.dbt import dbt_entries, read_descriptions
from jar_core.retriever import TableRetriever
from tests.test_descriptions import CRYPTIC, QUESTIONS

#: dbt's documentation of the cryptic tables of tests/test_descriptions.py: models built into the
#: schema ``main`` (one with an alias), a source, and a staging model the schema does not hold.
MANIFEST = {
    "metadata": {"dbt_version": "1.8.0"},
    "nodes": {
        "model.clinic.adverse_events": {
            "resource_type": "model", "name": "adverse_events", "alias": "t_x20", "schema": "main",
            "description": "Adverse events: side effects reported for patients",
            "columns": {"f2": {"name": "f2", "description": "severity of the event"},
                        "gone": {"name": "gone", "description": "a column dropped since"}},
        },
        "model.clinic.t_inv": {"resource_type": "model", "name": "t_inv", "alias": None, "schema": "main",
                               "description": "Inventory of pharmacy stock", "columns": {}},
        "model.clinic.stg_orders": {"resource_type": "model", "name": "stg_orders", "schema": "staging",
                                    "description": "Orders as loaded", "columns": {}},
        "test.clinic.not_null_t_inv_k1": {"resource_type": "test", "name": "not_null_t_inv_k1",
                                          "description": "not a relation"},
    },
    "sources": {
        "source.clinic.ehr.admissions": {
            "resource_type": "source", "name": "admissions", "identifier": "t_adm", "schema": "main",
            "description": "Inpatient stays: hospital admissions",
            "columns": {"F4": {"name": "F4", "description": "physician responsible for the stay"}},
        },
    },
}

PROPERTIES = """
version: 2
models:
  - name: adverse_events
    description: '{{ doc("adverse_events") }}'
    config:
      alias: t_x20
    columns:
      - name: f2
        description: severity of the event
  - name: t_inv
    description: Inventory of pharmacy stock
sources:
  - name: main
    tables:
      - name: admissions
        identifier: t_adm
        description: "Inpatient stays: hospital admissions"
        columns:
          - name: f4
            description: physician responsible for the stay
"""

DOCS = """
{% docs adverse_events %}
Adverse events: side effects
reported for patients
{% enddocs %}
"""

EXPECTED = {
    "main.t_x20": "Adverse events: side effects reported for patients", "main.t_x20.f2": "severity of the event",
    "main.t_inv": "Inventory of pharmacy stock",
    "main.t_adm": "Inpatient stays: hospital admissions", "main.t_adm.f4": "physician responsible for the stay",
}


@pytest.fixture(scope="module")
def cryptic():
    return load_ddl(CRYPTIC)


@pytest.fixture()
def manifest(tmp_path):
    path = tmp_path / "target" / "manifest.json"
    path.parent.mkdir()
    path.write_text(json.dumps(MANIFEST), encoding="utf-8")
    return path


@pytest.fixture()
def project(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "schema.yml").write_text(PROPERTIES, encoding="utf-8")
    (models / "docs.md").write_text(DOCS, encoding="utf-8")
    return tmp_path


def test_a_manifest_gives_the_descriptions_of_the_schemas_tables(cryptic, manifest, caplog):
    with caplog.at_level(logging.WARNING, logger="jar_core.loaders.dbt"):
        assert read_descriptions(manifest, cryptic) == EXPECTED
    # the staging model and the dropped column are left out, and said so; tests are no relations
    assert "1 of 4 documented relation(s) and 1 column(s) are not in the schema read" in caplog.text
    assert "staging.stg_orders" in caplog.text


def test_property_files_render_doc_blocks_and_match_aliases_and_identifiers(cryptic, project):
    assert read_descriptions(project / "models" / "schema.yml", cryptic) == EXPECTED
    assert read_descriptions(project, cryptic) == EXPECTED  # the folder: every property file under it


def test_a_project_folder_prefers_its_compiled_manifest(cryptic, project):
    (project / "target").mkdir()
    changed = json.loads(json.dumps(MANIFEST))
    changed["nodes"]["model.clinic.t_inv"]["description"] = "Stock kept by the pharmacy"
    (project / "target" / "manifest.json").write_text(json.dumps(changed), encoding="utf-8")
    assert read_descriptions(project, cryptic)["main.t_inv"] == "Stock kept by the pharmacy"
    assert [r.name for r in dbt_entries(project)] == ["t_x20", "t_inv", "stg_orders", "t_adm"]


def test_a_relation_found_by_its_name_alone_when_the_schema_differs(tmp_path):
    schema = load_ddl("CREATE TABLE orders (id INT PRIMARY KEY, total REAL); CREATE TABLE items (id INT PRIMARY KEY);")
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"nodes": {"model.p.orders": {
        "resource_type": "model", "name": "orders", "schema": "analytics", "description": "Customer orders",
        "columns": {"total": {"name": "total", "description": "order amount in EUR"}}}}, "sources": {}}))
    assert read_descriptions(path, schema) == {"main.orders": "Customer orders", "main.orders.total": "order amount in EUR"}


def test_dbt_descriptions_rank_like_written_ones(cryptic, manifest, embedder):
    plain = TableRetriever(cryptic, embedder=embedder)
    described = TableRetriever(cryptic, embedder=embedder, descriptions=manifest)  # a path: read as dbt
    assert described.descriptions == EXPECTED  # held as the mapping read (what persist saves)
    for question, table in QUESTIONS.items():
        if table in ("t_x20", "t_adm"):  # the tables this manifest describes with their words
            assert plain.retrieve(question, k=3).table_names[0] != table, question
            assert described.retrieve(question, k=3).table_names[0] == table, question


def test_a_plain_json_mapping_is_taken_as_written(cryptic, tmp_path):
    path = tmp_path / "descriptions.json"
    path.write_text(json.dumps({"t_inv": "Inventory", "t_inv.f3": "quantity on hand"}), encoding="utf-8")
    assert read_descriptions(path, cryptic) == {"t_inv": "Inventory", "t_inv.f3": "quantity on hand"}
    path.write_text(json.dumps({"t_nope": "x"}), encoding="utf-8")
    with pytest.raises(UnknownDatabaseError, match="no table 't_nope'"):
        TableRetriever(cryptic, descriptions=path)


@pytest.mark.parametrize("name, content, error, message", [
    ("manifest.json", "{not json", SourceError, "is not valid JSON"),
    ("manifest.json", "[1, 2]", SourceError, "expected a dbt manifest or a JSON object"),
    ("schema.yml", "models: [unclosed", SourceError, "is not valid YAML"),
    ("schema.yml", "- a list", SourceError, "a dbt property file is a mapping"),
    ("notes.txt", "text", SourceError, "expected a dbt manifest.json"),
    ("manifest.json", json.dumps({"nodes": {}, "sources": {}}), SourceError, "documents no model"),
    ("manifest.json", json.dumps({"nodes": {"model.p.x": {"resource_type": "model", "name": "elsewhere",
                                                          "schema": "s", "description": "d"}}}),
     UnknownDatabaseError, r"documents 1 relation\(s\), none a table of the schema read \(s.elsewhere\)"),
])
def test_bad_files_are_one_line_errors(cryptic, tmp_path, name, content, error, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(error, match=message) as e:
        read_descriptions(path, cryptic)
    assert "\n" not in str(e.value)
    with pytest.raises(SourceError, match="does not exist"):
        read_descriptions(tmp_path / "missing.json", cryptic)


def test_the_command_reads_descriptions(tmp_path, manifest):
    ddl = tmp_path / "clinic.sql"
    ddl.write_text(CRYPTIC, encoding="utf-8")
    env = {**os.environ, "JAR_RETRIEVAL_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}

    def retrieve(descriptions):
        return subprocess.run([sys.executable, "-m", "jar_core.cli", "retrieve", "Which adverse events were severe?",
                               "--ddl", str(ddl), "-k", "2", "--json", "--descriptions", str(descriptions)],
                              capture_output=True, text=True, env=env, timeout=300)

    described = retrieve(manifest)
    assert described.returncode == 0, described.stderr
    assert json.loads(described.stdout)["tables"][0]["name"] == "t_x20"
    missing = retrieve(tmp_path / "nope.json")
    assert missing.returncode == 1 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
