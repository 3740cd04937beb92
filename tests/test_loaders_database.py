"""Tests of jar_core.loaders.database.load_database (offline, on SQLite files in tmp_path)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy import event

from jar_core.errors import (
    DatabaseConnectionError,
    InvalidArgumentError,
    SchemaError,
    SourceError,
    UnknownDatabaseError,
)
from jar_core.loaders import load_database
from jar_core.loaders.database.samples import _column_stats
from jar_core.schema import ForeignKey, TypeFamily

CAFE = 'Café "Orders"'
MEAL = "Free Meal Count (K-12)"
BIG_ROWS = 5000

DDL = f'''
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, signed_up DATE, photo BLOB);
CREATE TABLE products (sku TEXT, region TEXT, price DECIMAL(10, 2), PRIMARY KEY (sku, region));
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), ordered_at DATE);
CREATE TABLE order_items (
    order_id INTEGER, sku TEXT, region TEXT, qty INTEGER,
    PRIMARY KEY (order_id, sku, region),
    FOREIGN KEY (order_id) REFERENCES orders(id),
    FOREIGN KEY (sku, region) REFERENCES products(sku, region)
);
CREATE TABLE "Café ""Orders""" (
    "Order ID" INTEGER PRIMARY KEY, "{MEAL}" REAL, "Straße" TEXT, "select" TEXT,
    customer INTEGER REFERENCES customers
);
CREATE TABLE big (id INTEGER PRIMARY KEY, grp INTEGER, k INTEGER, note TEXT, untyped);
CREATE VIEW customer_names AS SELECT name FROM customers;
'''


@pytest.fixture(scope="module")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "shop.db"
    con = sqlite3.connect(path)
    con.executescript(DDL)
    con.executemany(
        "INSERT INTO customers VALUES (?, ?, ?, ?, ?)",
        [
            (1, "Ann", "Paris", "2020-01-05", b"\x00\x01"),
            (2, "Bob", "Lyon", "2021-03-01", None),
            (3, "Cid", "Paris", None, None),
            (4, "Dee", None, "2020-01-05", b"\x02"),
        ],
    )
    con.executemany("INSERT INTO products VALUES (?, ?, ?)", [("A1", "eu", 9.5), ("A1", "us", 10.0)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(1, 1, "2022-01-01"), (2, 1, "2022-01-02")])
    con.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?)", [(1, "A1", "eu", 2), (2, "A1", "us", 1)])
    con.executemany(
        'INSERT INTO "Café ""Orders""" VALUES (?, ?, ?, ?, ?)',
        [(1, 3.5, "groß", "x", 1), (2, 3.5, "klein", "y", 2)],
    )
    # grp = i // 10: 100 distinct values in the first 1000 rows; k = i % 2500: all distinct in the
    # first 1000 rows (ratio 1.0) but 0.5 over the whole table.
    con.executemany(
        "INSERT INTO big VALUES (?, ?, ?, ?, ?)",
        ((i, i // 10, i % 2500, f"note {i % 7}", None) for i in range(BIG_ROWS)),
    )
    con.commit()
    con.close()
    return path


@pytest.fixture(scope="module")
def shop(shop_db: Path):
    return load_database(f"sqlite:///{shop_db}", sample_rows=1000, sample_values=5)


# -- structure ------------------------------------------------------------------------------


def test_tables_views_excluded_and_database_from_file_stem(shop) -> None:
    assert sorted(t.id for t in shop) == sorted(
        f"shop.{n}" for n in ["customers", "products", "orders", "order_items", CAFE, "big"]
    )
    assert shop.dialect == "sqlite"


def test_columns_types_and_primary_keys(shop) -> None:
    customers = shop["shop.customers"]
    assert [c.name for c in customers.columns] == ["id", "name", "city", "signed_up", "photo"]
    assert [c.type for c in customers.columns] == ["INTEGER", "TEXT", "TEXT", "DATE", "BLOB"]
    assert customers.primary_key == ("id",)
    assert shop["shop.products"].primary_key == ("sku", "region")
    assert shop["shop.products"].column("price").family is TypeFamily.REAL
    assert shop["shop.order_items"].primary_key == ("order_id", "sku", "region")
    assert shop["shop.big"].column("untyped").type == ""
    assert customers.comment is None and customers.columns[0].comment is None  # SQLite: no comments


def test_foreign_keys_including_composite_and_implicit_columns(shop) -> None:
    assert shop["shop.orders"].foreign_keys == [ForeignKey(("customer_id",), "shop.customers", ("id",))]
    items = shop["shop.order_items"]
    assert sorted(items.foreign_keys, key=lambda fk: fk.columns) == [
        ForeignKey(("order_id",), "shop.orders", ("id",)),
        ForeignKey(("sku", "region"), "shop.products", ("sku", "region")),
    ]
    # REFERENCES customers (no column list) targets the primary key.
    assert shop[f"shop.{CAFE}"].foreign_keys == [ForeignKey(("customer",), "shop.customers", ("id",))]


def test_odd_identifiers_everywhere(shop) -> None:
    cafe = shop[f"shop.{CAFE}"]
    assert [c.name for c in cafe.columns] == ["Order ID", MEAL, "Straße", "select", "customer"]
    assert cafe.primary_key == ("Order ID",)
    assert cafe.column(MEAL).sample == (3.5,)
    assert cafe.column(MEAL).unique_ratio == pytest.approx(0.5)
    assert cafe.column("Straße").sample == ("groß", "klein")
    assert cafe.column("select").sample == ("x", "y")
    assert cafe.row_count == 2


def test_database_name_override_and_include_tables(shop_db: Path) -> None:
    s = load_database(f"sqlite:///{shop_db}", database="retail", include_tables=["ORDERS", "customers"])
    assert [t.id for t in s] == ["retail.orders", "retail.customers"]
    assert s["retail.orders"].foreign_keys == [ForeignKey(("customer_id",), "retail.customers", ("id",))]
    # A foreign key to a table left out is dropped (it cannot be a join).
    s2 = load_database(f"sqlite:///{shop_db}", include_tables=["orders"], statistics=False)
    assert s2["shop.orders"].foreign_keys == []
    with pytest.raises(UnknownDatabaseError, match="nope"):
        load_database(f"sqlite:///{shop_db}", include_tables=["orders", "nope"])


# -- statistics -----------------------------------------------------------------------------


def test_statistics_small_table(shop) -> None:
    customers = shop["shop.customers"]
    assert customers.row_count == 4  # fewer rows than sample_rows: exact
    assert customers.column("id").unique_ratio == 1.0
    city = customers.column("city")
    assert city.unique_ratio == pytest.approx(2 / 4)  # NULL is not a value
    assert city.sample == ("Paris", "Lyon")  # distinct, first-seen order
    assert customers.column("signed_up").sample == ("2020-01-05", "2021-03-01")
    photo = customers.column("photo")
    assert photo.sample == () and photo.unique_ratio == pytest.approx(2 / 4)  # bytes counted, not sampled
    assert shop["shop.products"].column("price").sample == (9.5, 10.0)


def test_statistics_read_at_most_sample_rows(shop) -> None:
    big = shop["shop.big"]
    assert big.row_count is None  # more rows than were read: unknown
    assert big.column("id").unique_ratio == 1.0
    assert big.column("grp").unique_ratio == pytest.approx(100 / 1000)
    assert big.column("k").unique_ratio == 1.0  # 0.5 over the full table
    assert big.column("grp").sample == (0, 1, 2, 3, 4)  # sample_values=5
    assert big.column("note").sample == tuple(f"note {i}" for i in range(5))
    assert big.column("untyped").unique_ratio == 0.0 and big.column("untyped").sample == ()


def test_every_query_is_bounded_and_engine_is_left_open(shop_db: Path) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{shop_db}")
    statements: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001
        statements.append(statement)

    s = load_database(engine, sample_rows=50)
    reads = [q for q in statements if q.lstrip().upper().startswith("SELECT") and "sqlite_" not in q]
    assert len(reads) == len(s.tables)  # one bounded query per table, no COUNT(*)
    assert all("LIMIT" in q.upper() for q in reads)
    assert not any("COUNT(" in q.upper() for q in statements)
    assert not any(q.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "CREATE")) for q in statements)
    assert s["shop.big"].column("grp").unique_ratio == pytest.approx(5 / 50)
    with engine.connect() as conn:  # the caller's engine was not disposed
        assert conn.exec_driver_sql("SELECT count(*) FROM big").scalar() == BIG_ROWS
    engine.dispose()


def test_statistics_off_runs_no_data_query(shop_db: Path) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{shop_db}")
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    s = load_database(engine, statistics=False)
    assert not [q for q in statements if q.lstrip().upper().startswith("SELECT") and "sqlite_" not in q]
    assert all(c.unique_ratio is None and c.sample == () for t in s for c in t.columns)
    assert all(t.row_count is None for t in s)
    engine.dispose()


def test_column_stats_values_are_json_friendly() -> None:
    values = [
        Decimal("1.50"),
        dt.date(2020, 1, 2),
        dt.datetime(2020, 1, 2, 3, 4, 5),
        b"\x00",
        None,
        {"a": [1]},
        [1, 2],
        float("nan"),
        Decimal("Infinity"),
        "x" * 500,
        Decimal("1.50"),
    ]
    ratio, sample = _column_stats(values, len(values), 20)
    assert ratio == pytest.approx(9 / 11)
    assert sample == (1.5, "2020-01-02", "2020-01-02T03:04:05", '{"a": [1]}', "[1, 2]", "x" * 200)
    assert _column_stats([], 0, 20) == (None, ())


def test_bad_sampling_arguments(shop_db: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        load_database(f"sqlite:///{shop_db}", sample_rows=0)
    with pytest.raises(InvalidArgumentError):
        load_database(f"sqlite:///{shop_db}", sample_values=-1)
    with pytest.raises(InvalidArgumentError, match="from 0 to 1000"):
        load_database(f"sqlite:///{shop_db}", sample_values=1001)


def test_value_matching_finds_a_name_far_down_a_small_table(tmp_path: Path) -> None:
    # a dimension of 150 names: the one asked about is the 90th (Chinook's artist table has 275)
    path = tmp_path / "music.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("CREATE TABLE album (album_id INTEGER PRIMARY KEY, title TEXT, artist_id INTEGER REFERENCES artist)")
    con.executemany("INSERT INTO artist VALUES (?, ?)", [(i, f"Band number {i}") for i in range(150)])
    con.execute("UPDATE artist SET name = 'Iron Maiden' WHERE artist_id = 90")
    con.executemany("INSERT INTO album VALUES (?, ?, ?)", [(i, f"Record {i}", i % 150) for i in range(300)])
    con.commit()
    con.close()
    from jar_core.candidates.values import ValueIndex, match_values

    found = match_values(ValueIndex.from_schema(load_database(f"sqlite:///{path}")), "albums by Iron Maiden")
    assert [(m.value, m.column) for m in found] == [("Iron Maiden", 1)]
    few = match_values(ValueIndex.from_schema(load_database(f"sqlite:///{path}", sample_values=20)), "albums by Iron Maiden")
    assert few == []  # the bound is real: past the first 20 distinct names, not found


# -- errors ---------------------------------------------------------------------------------


def error_message(err: pytest.ExceptionInfo[BaseException]) -> str:
    msg = str(err.value)
    assert "\n" not in msg
    return msg


def test_missing_sqlite_file_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(DatabaseConnectionError) as err:
        load_database(f"sqlite:///{missing}")
    assert "does not exist" in error_message(err) and "missing.db" in str(err.value)
    assert not missing.exists()
    engine = sqlalchemy.create_engine(f"sqlite:///{missing}")  # an engine is checked too
    with pytest.raises(DatabaseConnectionError):
        load_database(engine)
    assert not missing.exists()


def test_a_directory_or_a_missing_folder_is_named_not_a_disk_io_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as err:  # SQLite's own message: 'disk I/O error'
        load_database(f"sqlite:///{tmp_path}")
    assert isinstance(err.value, DatabaseConnectionError)
    assert f"{str(tmp_path)!r} is a directory, not a SQLite database file" in error_message(err)
    with pytest.raises(DatabaseConnectionError, match="is a directory"):  # an engine is checked too
        load_database(sqlalchemy.create_engine(f"sqlite:///{tmp_path}"))
    missing = tmp_path / "nofolder" / "shop.db"
    with pytest.raises(DatabaseConnectionError) as err:
        load_database(f"sqlite:///{missing}")
    assert f"the folder {str(missing.parent)!r} does not exist" in error_message(err)
    (tmp_path / "file").write_text("")
    with pytest.raises(DatabaseConnectionError, match="is not a folder"):
        load_database(f"sqlite:///{tmp_path / 'file' / 'shop.db'}")
    assert not missing.parent.exists()
    for memory in ("sqlite://", "sqlite:///:memory:"):  # in memory: no file to check, an empty database
        with pytest.raises(SchemaError, match="has no tables"):
            load_database(memory)


def test_malformed_url() -> None:
    with pytest.raises(DatabaseConnectionError, match="malformed database URL") as err:
        load_database("not a url")
    error_message(err)
    with pytest.raises(DatabaseConnectionError) as err:
        load_database("postgresql://u:secret@host:notaport/db")
    assert "secret" not in error_message(err)
    with pytest.raises(DatabaseConnectionError, match="unknown database dialect"):
        load_database("nosuchdialect://x/y")


def test_unreachable_server_masks_password() -> None:
    # OperationalError when the driver is installed, missing-driver error otherwise.
    with pytest.raises(DatabaseConnectionError) as err:
        load_database("postgresql://u:secret@127.0.0.1:1/x")
    msg = error_message(err)
    assert "secret" not in msg and "postgresql://u:***@127.0.0.1:1/x" in msg


@pytest.mark.skipif(importlib.util.find_spec("pymysql") is not None, reason="pymysql is installed")
def test_missing_driver_names_the_package() -> None:
    with pytest.raises(DatabaseConnectionError) as err:
        load_database("mysql+pymysql://u:secret@127.0.0.1:1/x")
    msg = error_message(err)
    assert "pymysql" in msg and "pip install" in msg and "secret" not in msg


def test_connection_failure_is_wrapped(tmp_path: Path) -> None:
    def refuse() -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    with pytest.raises(DatabaseConnectionError, match="cannot connect.*unable to open database file") as err:
        load_database(sqlalchemy.create_engine("sqlite://", creator=refuse))  # an OperationalError at connect
    error_message(err)
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("this is not a database\n" * 100)
    with pytest.raises(DatabaseConnectionError, match="notes.db") as err:
        load_database(f"sqlite:///{not_a_db}")
    error_message(err)


def test_empty_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    with pytest.raises(SchemaError, match="has no tables"):
        load_database(f"sqlite:///{empty}")
    with pytest.raises(SchemaError, match="has no tables"):
        load_database("sqlite://")  # in memory


# -- secrets, read-only connections, byte-bounded samples ------------------------------

SECRET = "s3cr3tVal"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://u@127.0.0.1:1/x?password={SECRET}",
        f"postgresql://u:pw@127.0.0.1:1/x?sslpassword={SECRET}",
        f"mysql+pymysql://u@127.0.0.1:1/x?passwd={SECRET}",
        f"postgresql://user:p@{SECRET}:w0rd@127.0.0.1/db",
        f"postgresql://user:p@{SECRET}@127.0.0.1:1/db",
        f"postgresql://user:{SECRET}@127.0.0.1:notaport/db",
        f"nosuchdialect://user:{SECRET}@127.0.0.1/db",
    ],
)
def test_passwords_never_appear_in_error_messages(url: str) -> None:
    with pytest.raises(DatabaseConnectionError) as err:
        load_database(url)
    assert SECRET not in str(err.value) and "w0rd" not in str(err.value)
    assert "***" in str(err.value)


def test_redact_url_uses_sqlalchemy_rendering_and_hides_query_secrets() -> None:
    from jar_core.loaders.database import redact_url

    assert redact_url(f"postgresql://u:{SECRET}@h:5432/db?sslmode=require&sslpassword={SECRET}") == (
        "postgresql://u:***@h:5432/db?sslmode=require&sslpassword=***"
    )
    assert redact_url(f"postgresql://user:p@ss:{SECRET}@host/db") == "postgresql://user:***@host/db"


def _write_attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the statistics step try a write on the loader's connection first; returns what happened."""
    import jar_core.loaders.database.load as database

    attempts: list[str] = []
    real = database._add_statistics

    def trying_to_write(conn, *args, **kwargs):
        try:
            conn.exec_driver_sql("CREATE TABLE hacked (x INTEGER)")
            attempts.append("written")
        except sqlalchemy.exc.OperationalError:
            attempts.append("refused")
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(database, "_add_statistics", trying_to_write)
    return attempts


def test_a_sqlite_url_is_opened_read_only(shop_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    attempts = _write_attempts(monkeypatch)
    load_database(f"sqlite:///{shop_db}")
    assert attempts and set(attempts) == {"refused"}


def test_a_given_engine_is_read_only_during_the_load_and_writable_after(
    shop_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(shop_db.read_bytes())
    engine = sqlalchemy.create_engine(f"sqlite:///{copy}")
    attempts = _write_attempts(monkeypatch)
    load_database(engine)
    assert attempts and set(attempts) == {"refused"}
    with engine.begin() as conn:  # the caller's engine is left as it was
        conn.exec_driver_sql("CREATE TABLE later (x INTEGER)")
    engine.dispose()


def test_sample_rows_for_documents_are_read_read_only(shop_db: Path) -> None:
    from jar_core.loaders.database import read_only_connection

    engine = sqlalchemy.create_engine(f"sqlite:///{shop_db}")
    with read_only_connection(engine) as conn:
        with pytest.raises(sqlalchemy.exc.OperationalError, match="readonly|read-only|query_only"):
            conn.exec_driver_sql("DELETE FROM customers")
    engine.dispose()


def test_server_sessions_are_made_read_only() -> None:
    from jar_core.loaders.database.connect import _READ_ONLY_SESSION, _session_setter

    class FakeConnection:
        def __init__(self) -> None:
            self.executed: list[str] = []
            self.committed = False

        def cursor(self):
            conn = self

            class Cursor:
                def execute(self, statement: str) -> None:
                    conn.executed.append(statement)

                def close(self) -> None:
                    pass

            return Cursor()

        def commit(self) -> None:
            self.committed = True

    for dialect, expected in (("postgresql", "default_transaction_read_only = on"), ("mysql", "READ ONLY")):
        fake = FakeConnection()
        _session_setter(_READ_ONLY_SESSION[dialect], commit=True)(fake, None)
        assert any(expected in s for s in fake.executed) and fake.committed


def test_samples_are_bounded_by_bytes(tmp_path: Path) -> None:
    import tracemalloc

    db = tmp_path / "big.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany("INSERT INTO blobs VALUES (?, ?)", ((i, chr(65 + i % 26) * 2**20) for i in range(40)))
    tracemalloc.start()
    try:
        schema = load_database(f"sqlite:///{db}", sample_bytes=4 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12 * 2**20  # reading all 40 values (40 MiB) at once is what this prevents
    body = schema["blobs"].column("body")
    assert 1 <= len(body.sample) <= 5 and all(len(v) == 200 for v in body.sample)
    assert schema["blobs"].row_count is None  # not all rows were read
    assert body.unique_ratio == 1.0
    with pytest.raises(InvalidArgumentError, match="sample_bytes"):
        load_database(f"sqlite:///{db}", sample_bytes=0)


def test_unique_columns_are_read_from_sqlite_and_duckdb(tmp_path):
    import sqlite3

    duckdb = pytest.importorskip("duckdb")
    sql = ["CREATE TABLE admissions (row_id INT PRIMARY KEY, hadm_id INT NOT NULL UNIQUE, note TEXT, code TEXT)",
           "CREATE TABLE chartevents (row_id INT PRIMARY KEY, hadm_id INT, x INT, y INT, UNIQUE (x, y))"]
    lite = sql + ["CREATE UNIQUE INDEX ix_code ON admissions (code)",
                  "CREATE UNIQUE INDEX ix_part ON admissions (note) WHERE note IS NOT NULL"]
    with sqlite3.connect(tmp_path / "m.db") as c:
        for stmt in lite:
            c.execute(stmt)
    d = duckdb.connect(str(tmp_path / "m.duckdb"))
    for stmt in sql + ["CREATE UNIQUE INDEX ix_code ON admissions (code)",  # DuckDB has no partial index
                       "CREATE UNIQUE INDEX ix_lower ON admissions (lower(note))",
                       "CREATE UNIQUE INDEX ix_two ON chartevents (hadm_id, x)", "CREATE INDEX ix_y ON chartevents (y)"]:
        d.execute(stmt)
    d.close()
    for url, want in [(f"sqlite:///{tmp_path / 'm.db'}", {"hadm_id", "code"}),
                      (f"duckdb:///{tmp_path / 'm.duckdb'}", {"hadm_id", "code"})]:
        schema = load_database(url)
        got = {c.name for t in schema.tables for c in t.columns if c.unique}
        assert got == want, (url, got)  # one column alone; not (x, y), not a partial index


def test_computed_columns_are_read_from_sqlite(tmp_path):
    import sqlite3

    with sqlite3.connect(tmp_path / "g.db") as c:
        c.execute("CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED, "
                  "c TEXT GENERATED ALWAYS AS (a || 'x') VIRTUAL)")
    schema = load_database(f"sqlite:///{tmp_path / 'g.db'}")
    assert {c.name: c.computed for c in schema["t"].columns} == {"a": False, "b": True, "c": True}



def _mysql_reflected(show_create: str) -> list[dict]:
    """The columns MySQL's reflection makes of ``SHOW CREATE TABLE`` (no MySQL server here)."""
    from sqlalchemy.dialects.mysql import base, reflection

    dialect = base.MySQLDialect()
    parser = reflection.MySQLTableDefinitionParser(dialect, dialect.identifier_preparer)
    return parser.parse(show_create, "utf8mb4").columns


#: Sakila's film as MySQL shows it, and an enumeration of more labels than a column keeps.
MYSQL_FILM = (
    "CREATE TABLE `film` (\n"
    "  `film_id` smallint unsigned NOT NULL AUTO_INCREMENT,\n"
    "  `rating` enum('G','PG','PG-13','R','NC-17') DEFAULT 'G',\n"
    "  `special_features` set('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL,\n"
    "  `status` enum('it''s out','new') NOT NULL,\n"
    "  `many` enum(" + ",".join(f"'l{i}'" for i in range(105)) + "),\n"
    "  `title` varchar(128) NOT NULL,\n"
    "  PRIMARY KEY (`film_id`)\n"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
)


def test_a_reflected_mysql_enum_or_set_is_an_enumeration_with_its_labels() -> None:
    from sqlalchemy.dialects.mysql import base

    from jar_core.loaders.database import DEFAULT_SAMPLE_VALUES
    from jar_core.loaders.database.reflect import _reflected_column

    dialect = base.MySQLDialect()
    reflected = _mysql_reflected(MYSQL_FILM)
    cols = {c["name"]: _reflected_column(c, dialect, primary_key=False, unique=False, sample_values=3)
            for c in reflected}
    got = {name: (c.type, c.family, c.sample) for name, c in cols.items() if c.enum}
    assert got == {
        "rating": ("ENUM('G','PG','PG-13','R','NC-17')", TypeFamily.TEXT, ("G", "PG", "PG-13")),
        "special_features": ("SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes')", TypeFamily.TEXT,
                             ("Trailers", "Commentaries", "Deleted Scenes")),
        "status": ("ENUM('it''s out','new')", TypeFamily.TEXT, ("it's out", "new")),
        "many": (cols["many"].type, TypeFamily.TEXT, ("l0", "l1", "l2")),
    }
    assert not cols["film_id"].enum and not cols["title"].enum and cols["title"].sample == ()
    every = _reflected_column(reflected[4], dialect, primary_key=False, unique=False,
                              sample_values=DEFAULT_SAMPLE_VALUES)
    assert len(every.sample) == DEFAULT_SAMPLE_VALUES  # bounded like the rows' values


def test_a_reflected_enumeration_keeps_its_labels_over_the_rows_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the load itself, any dialect (it was PostgreSQL's only): a SQLite file whose reflection
    # gives MySQL's types, its rows read for statistics
    from sqlalchemy.engine.reflection import Inspector

    path = tmp_path / "sakila.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE film (film_id INTEGER PRIMARY KEY, rating TEXT, special_features TEXT, status TEXT,"
                " many TEXT, title TEXT)")
    con.executemany("INSERT INTO film VALUES (?, ?, ?, ?, ?, ?)",
                    [(i, "PG", "Trailers", "new", "l7", f"Film {i}") for i in range(1, 5)])
    con.commit()
    con.close()
    reflected = _mysql_reflected(MYSQL_FILM)
    monkeypatch.setattr(Inspector, "get_multi_columns",
                        lambda self, schema=None, filter_names=None, **kw: {(schema, "film"): reflected})
    for statistics in (True, False):
        film = load_database(f"sqlite:///{path}", statistics=statistics)["film"]
        assert [c.name for c in film.columns if c.enum] == ["rating", "special_features", "status", "many"]
        assert film.column("rating").sample == ("G", "PG", "PG-13", "R", "NC-17")
        assert film.column("special_features").sample[-1] == "Behind the Scenes"
        assert film.column("title").sample == (("Film 1", "Film 2", "Film 3", "Film 4") if statistics else ())
        assert film.column("rating").unique_ratio == (0.25 if statistics else None)  # the rows' statistics stay
        assert len(film.column("many").sample) == 100
