"""Tests of jar_core.loaders.ddl.load_ddl (DDL text and .sql files, several sqlglot dialects)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from jar_core.errors import DDLParseError, InvalidArgumentError, SchemaError, SourceError
from jar_core.loaders import load_ddl
from jar_core.schema import ForeignKey, TypeFamily

MYSQL_DUMP = """
-- MySQL dump 10.13
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
SET NAMES utf8mb4;
DROP TABLE IF EXISTS `customers`;
CREATE TABLE `customers` (
  `id` int NOT NULL AUTO_INCREMENT COMMENT 'customer id',
  `name` varchar(100) DEFAULT NULL,
  `vip` tinyint(1) NOT NULL DEFAULT '0',
  PRIMARY KEY (`id`),
  UNIQUE KEY `uq_name` (`name`)
) ENGINE=InnoDB AUTO_INCREMENT=42 DEFAULT CHARSET=utf8mb4 COMMENT='people who buy';
CREATE TABLE `Café Orders` (
  `order id` int NOT NULL AUTO_INCREMENT,
  `cust_id` int DEFAULT NULL,
  `Free Meal Count (K-12)` decimal(10,2) unsigned,
  `placed` datetime,
  PRIMARY KEY (`order id`),
  KEY `idx_cust` (`cust_id`),
  CONSTRAINT `fk_cust` FOREIGN KEY (`cust_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB;
CREATE TABLE `order_tags` (
  `order_id` int NOT NULL,
  `tag` varchar(20) NOT NULL,
  PRIMARY KEY (`order_id`, `tag`),
  FOREIGN KEY (`order_id`) REFERENCES `Café Orders` (`order id`)
) ENGINE=InnoDB;
LOCK TABLES `customers` WRITE;
INSERT INTO `customers` VALUES (1,'a;b',0),(2,'it\\'s',1);
UNLOCK TABLES;
CREATE INDEX `idx_tag` ON `order_tags` (`tag`);
"""

POSTGRES_DUMP = """
SET statement_timeout = 0;
CREATE SCHEMA sales;
CREATE TABLE sales.customers (
    id serial PRIMARY KEY,
    name text NOT NULL
);
CREATE TABLE sales.orders (
    id bigint NOT NULL,
    customer_id integer,
    "Free Meal Count (K-12)" numeric(10,0),
    CONSTRAINT orders_pk PRIMARY KEY (id),
    CONSTRAINT fk_cust FOREIGN KEY (customer_id) REFERENCES sales.customers(id)
);
CREATE TABLE public.audit (id int, order_id bigint REFERENCES sales.orders, note varchar(20));
CREATE TABLE lines (order_id bigint, n int, sku text);
COMMENT ON TABLE sales.orders IS 'All orders';
COMMENT ON COLUMN sales.orders.customer_id IS 'who ordered';
ALTER TABLE ONLY lines ADD CONSTRAINT lines_pkey PRIMARY KEY (order_id, n);
ALTER TABLE ONLY lines ADD CONSTRAINT lines_fk FOREIGN KEY (order_id) REFERENCES sales.orders(id);
ALTER TABLE lines OWNER TO postgres;
CREATE INDEX lines_sku ON lines (sku);
INSERT INTO lines VALUES (1, 2, 'it''s; fine');
"""


def _fk(table) -> list[ForeignKey]:  # noqa: ANN001
    return sorted(table.foreign_keys, key=lambda fk: fk.columns)


# -- dialects -----------------------------------------------------------------------------


def test_mysql_dump() -> None:
    s = load_ddl(MYSQL_DUMP, dialect="mysql", database="shop")
    assert [t.id for t in s] == ["shop.customers", "shop.Café Orders", "shop.order_tags"]
    assert s.dialect == "mysql"
    customers = s["shop.customers"]
    assert [(c.name, c.type) for c in customers.columns] == [
        ("id", "INT"),
        ("name", "VARCHAR(100)"),
        ("vip", "TINYINT(1)"),
    ]
    assert customers.primary_key == ("id",)
    assert customers.column("id").comment == "customer id"
    assert customers.comment == "people who buy"
    orders = s["shop.Café Orders"]
    assert [c.name for c in orders.columns] == ["order id", "cust_id", "Free Meal Count (K-12)", "placed"]
    assert orders.primary_key == ("order id",)
    assert orders.column("Free Meal Count (K-12)").family is TypeFamily.REAL
    assert orders.column("placed").family is TypeFamily.DATETIME
    assert orders.foreign_keys == [ForeignKey(("cust_id",), "shop.customers", ("id",))]
    tags = s["shop.order_tags"]
    assert tags.primary_key == ("order_id", "tag")
    assert tags.foreign_keys == [ForeignKey(("order_id",), "shop.Café Orders", ("order id",))]
    # No statistics from DDL.
    assert all(c.unique_ratio is None and c.sample == () for t in s for c in t.columns)
    assert all(t.row_count is None for t in s)


def test_postgres_schemas_constraints_comments_and_alter() -> None:
    s = load_ddl(POSTGRES_DUMP, dialect="postgres", database="app")
    assert [t.id for t in s] == ["sales.customers", "sales.orders", "public.audit", "app.lines"]
    orders = s["sales.orders"]
    assert orders.primary_key == ("id",)
    assert orders.comment == "All orders"
    assert orders.column("customer_id").comment == "who ordered"
    assert orders.column("Free Meal Count (K-12)").family is TypeFamily.INTEGER  # numeric(10,0)
    assert orders.foreign_keys == [ForeignKey(("customer_id",), "sales.customers", ("id",))]
    assert s["sales.customers"].primary_key == ("id",)
    # REFERENCES without a column list targets the primary key.
    assert s["public.audit"].foreign_keys == [ForeignKey(("order_id",), "sales.orders", ("id",))]
    lines = s["app.lines"]  # keys added by ALTER TABLE (pg_dump style)
    assert lines.primary_key == ("order_id", "n")
    assert lines.foreign_keys == [ForeignKey(("order_id",), "sales.orders", ("id",))]


def test_tsql_brackets_and_go_batches() -> None:
    ddl = """
CREATE TABLE [dbo].[Customers] (
    [CustomerID] [nchar](5) NOT NULL,
    [Company Name] [nvarchar](40) NOT NULL,
    CONSTRAINT [PK_Customers] PRIMARY KEY CLUSTERED ([CustomerID] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[Order Details] (
    [OrderID] [int] NOT NULL,
    [ProductID] [int] NOT NULL,
    [CustomerID] [nchar](5) NULL,
    [UnitPrice] [money] NOT NULL,
    CONSTRAINT [PK_Order_Details] PRIMARY KEY CLUSTERED ([OrderID] ASC, [ProductID] ASC)
)
GO
ALTER TABLE [dbo].[Order Details] WITH CHECK ADD CONSTRAINT [FK_Cust] FOREIGN KEY([CustomerID])
REFERENCES [dbo].[Customers] ([CustomerID])
GO
"""
    s = load_ddl(ddl, dialect="tsql")
    assert [t.id for t in s] == ["dbo.Customers", "dbo.Order Details"]
    details = s["dbo.Order Details"]
    assert details.primary_key == ("OrderID", "ProductID")
    assert details.column("UnitPrice").family is TypeFamily.REAL
    assert details.foreign_keys == [ForeignKey(("CustomerID",), "dbo.Customers", ("CustomerID",))]
    assert s["dbo.Customers"].column("Company Name").type == "NVARCHAR(40)"


def test_tsql_script_of_ssdt_each_statement_ended_and_batched() -> None:
    # WideWorldImporters' SSDT table files: statements end with ';' and a GO line follows each;
    # before, sqlglot read GO as a command that swallowed the next CREATE TABLE (1 table of 48)
    ddl = (
        "CREATE TABLE [Sales].[BuyingGroups] (\r\n [BuyingGroupID] INT NOT NULL,\r\n"
        " [Name] NVARCHAR(50) MASKED WITH (FUNCTION = 'default()') NOT NULL,\r\n"
        " CONSTRAINT [PK_BG] PRIMARY KEY CLUSTERED ([BuyingGroupID] ASC),\r\n"
        " CONSTRAINT [UQ_BG_Name] UNIQUE NONCLUSTERED ([Name] ASC)\r\n);\r\nGO\r\n\r\n"
        "CREATE TABLE [Sales].[Customers] (\r\n [CustomerID] INT NOT NULL,\r\n [CustomerName] NVARCHAR(100) NOT NULL,\r\n"
        " [BuyingGroupID] INT NULL,\r\n CONSTRAINT [PK_C] PRIMARY KEY CLUSTERED ([CustomerID] ASC),\r\n"
        " CONSTRAINT [FK_C_BG] FOREIGN KEY ([BuyingGroupID]) REFERENCES [Sales].[BuyingGroups] ([BuyingGroupID]),\r\n"
        " CONSTRAINT [UQ_C_Name] UNIQUE ([CustomerName] ASC),\r\n INDEX [IX_C_BG] NONCLUSTERED ([BuyingGroupID])\r\n"
        ");\r\ngo 2 -- twice\r\nCREATE TABLE [Sales].[Orders] ([OrderID] INT NOT NULL PRIMARY KEY, [CustomerID] INT);\nGO\n"
    )
    s = load_ddl(ddl, dialect="tsql")
    assert [t.id for t in s] == ["Sales.BuyingGroups", "Sales.Customers", "Sales.Orders"]
    customers = s["Sales.Customers"]
    # the inline INDEX is no column; MASKED WITH (...) is read past; UNIQUE [NONCLUSTERED] ([a] ASC) is a key
    assert [c.name for c in customers.columns] == ["CustomerID", "CustomerName", "BuyingGroupID"]
    assert customers.column("CustomerName").unique and s["Sales.BuyingGroups"].column("Name").unique
    assert s["Sales.BuyingGroups"].column("Name").type == "NVARCHAR(50)"
    assert customers.foreign_keys == [ForeignKey(("BuyingGroupID",), "Sales.BuyingGroups", ("BuyingGroupID",))]
    # a quoted column named INDEX is a column
    assert [c.name for c in load_ddl("CREATE TABLE t ([INDEX] INT, a INT)", dialect="tsql").tables[0].columns] == ["INDEX", "a"]


def test_tsql_key_with_a_column_list_after_a_column_is_the_tables() -> None:
    # WideWorldImportersDW's [Dimension].[Date]: no comma between the last column and the table's key;
    # SQL Server reads it as the key on [Date] (the list), which was read as [ISO Week Number]'s own
    ddl = """
CREATE TABLE [Dimension].[Date] (
    [Date]                                  DATE          NOT NULL
  , [Day Number]                            INT           NOT NULL
  , [ISO Week Number]                       INT           NOT NULL  -- 1
    CONSTRAINT [PK_Dimension_Date] PRIMARY KEY CLUSTERED ([Date] ASC)
);
GO
CREATE TABLE [Fact].[Stock] (
    [Stock Key] INT NOT NULL PRIMARY KEY,
    [Date Key] DATE NOT NULL,
    [Code] NVARCHAR(10) NOT NULL,
    [Bin] INT NOT NULL CONSTRAINT [UQ_Stock_Code] UNIQUE NONCLUSTERED ([Code])
        CONSTRAINT [FK_Stock_Date] FOREIGN KEY ([Date Key]) REFERENCES [Dimension].[Date] ([Date])
);
GO
"""
    s = load_ddl(ddl, dialect="tsql")
    assert s["Dimension.Date"].primary_key == ("Date",)
    stock = s["Fact.Stock"]
    assert stock.primary_key == ("Stock Key",)  # a column's own PRIMARY KEY, without a list, stays its own
    assert [c.name for c in stock.columns if c.unique] == ["Code"]
    assert stock.foreign_keys == [ForeignKey(("Date Key",), "Dimension.Date", ("Date",))]


def test_tsql_key_storage_and_column_options_keys_do_not_need_are_read_past() -> None:
    # WideWorldImportersDW's partitioned facts (a key ON a partition scheme), AdventureWorks'
    # ROWGUIDCOL and UNIQUE before a named DEFAULT, pubs' PRIMARY KEY CLUSTERED without a list:
    # each made the whole file unreadable
    ddl = """
CREATE TABLE [Fact].[Movement] (
    [Movement Key] BIGINT IDENTITY (1, 1) NOT NULL,
    [Date Key] DATE NOT NULL,
    [Stock Item Key] INT NOT NULL,
    CONSTRAINT [PK_Fact_Movement] PRIMARY KEY NONCLUSTERED ([Movement Key] ASC, [Date Key] ASC) ON [PS_Date] ([Date Key]),
    CONSTRAINT [FK_Movement_Item] FOREIGN KEY ([Stock Item Key]) REFERENCES [Item] ([Stock Item Key]) ON DELETE CASCADE
);
GO
CREATE UNIQUE NONCLUSTERED INDEX [UX_Movement_Item] ON [Fact].[Movement]([Stock Item Key] ASC) ON [PS_Date] ([Date Key]);
GO
CREATE TABLE [Item] (
    [Stock Item Key] INT CONSTRAINT [PK_Item] PRIMARY KEY CLUSTERED WITH (FILLFACTOR = 90) ON [PRIMARY],
    [rowguid] uniqueidentifier ROWGUIDCOL NOT NULL UNIQUE CONSTRAINT [DF_Item_rowguid] DEFAULT (NEWID()),
    [Notes] NVARCHAR(MAX) SPARSE NULL
) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY];
GO
CREATE TABLE [Bin] ([Bin Key] INT NOT NULL, [Date Key] DATE NOT NULL, [Code] INT NOT NULL);
GO
ALTER TABLE [Bin] ADD CONSTRAINT [PK_Bin] PRIMARY KEY CLUSTERED ([Bin Key], [Date Key]) ON [PS_Date] ([Date Key]);
GO
ALTER TABLE [Bin] ADD CONSTRAINT [UQ_Bin_Code] UNIQUE NONCLUSTERED ([Code]) WITH FILLFACTOR = 80;
GO
"""
    s = load_ddl(ddl, dialect="tsql")
    movement = s["Fact.Movement"]
    assert movement.primary_key == ("Movement Key", "Date Key")
    assert movement.foreign_keys == [ForeignKey(("Stock Item Key",), "main.Item", ("Stock Item Key",))]
    assert movement.column("Stock Item Key").unique
    item = s["Item"]
    assert item.primary_key == ("Stock Item Key",)
    assert [c.name for c in item.columns] == ["Stock Item Key", "rowguid", "Notes"]
    assert item.column("rowguid").unique and item.column("rowguid").type == "UNIQUEIDENTIFIER"
    assert s["Bin"].primary_key == ("Bin Key", "Date Key") and s["Bin"].column("Code").unique


def test_tsql_indexes_in_the_column_list() -> None:
    # WideWorldImporters' Application.Logs: INDEX ... CLUSTERED COLUMNSTORE failed the file; a UNIQUE
    # index on one column is a key, as CREATE UNIQUE INDEX is; a filtered one or one on two columns is not
    ddl = """
CREATE TABLE [Application].[Logs](
    [Message] NVARCHAR(4000) NOT NULL,
    [EventTime] DATETIME2 (7) NOT NULL,
    INDEX CCX_Application_Logs CLUSTERED COLUMNSTORE
)
GO
CREATE TABLE [Sales].[Codes] (
    [CodeID] INT NOT NULL,
    [Code] NVARCHAR(20) NOT NULL,
    [Alias] NVARCHAR(20) NULL,
    [Region] INT NOT NULL,
    INDEX [UX_Codes_Code] UNIQUE NONCLUSTERED ([Code] ASC) INCLUDE ([Region]) WITH (FILLFACTOR = 90) ON [PRIMARY],
    INDEX [UX_Codes_Alias] UNIQUE ([Alias]) WHERE [Alias] IS NOT NULL,
    INDEX [UX_Codes_Pair] UNIQUE ([CodeID], [Region]),
    INDEX [IX_Codes_Region] NONCLUSTERED HASH ([Region]) WITH (BUCKET_COUNT = 64)
)
GO
CREATE TABLE [Sales].[Tags] ([TagID] INT NOT NULL, [Tag] NVARCHAR(20) NOT NULL, INDEX [UX_Tags_Tag] UNIQUE NONCLUSTERED ([Tag]))
GO
"""
    s = load_ddl(ddl, dialect="tsql")
    assert [c.name for c in s["Application.Logs"].columns] == ["Message", "EventTime"]
    codes = s["Sales.Codes"]
    assert [c.name for c in codes.columns] == ["CodeID", "Code", "Alias", "Region"]
    assert [c.name for c in codes.columns if c.unique] == ["Code"]
    assert [c.name for c in s["Sales.Tags"].columns if c.unique] == ["Tag"]  # read by sqlglot as it stands


def test_tsql_statements_without_semicolons_are_read_apart() -> None:
    # AdventureWorksDW's install script: T-SQL needs no ';', and two ALTER TABLEs in a row were read
    # as one statement sqlglot cannot read, so both foreign keys were lost
    ddl = """CREATE TABLE [dbo].[DimGeography] ([GeographyKey] int NOT NULL PRIMARY KEY)
CREATE TABLE [dbo].[DimCustomer] ([CustomerKey] int NOT NULL, [GeographyKey] int NULL, [Code] nvarchar(15))
CREATE UNIQUE NONCLUSTERED INDEX [AK_DimCustomer_Code] ON [dbo].[DimCustomer]([Code])
CREATE NONCLUSTERED INDEX [IX_DimCustomer_Geography] ON [dbo].[DimCustomer]([GeographyKey])
CREATE TABLE [dbo].[DimDepartmentGroup] ([DepartmentGroupKey] int NOT NULL, [ParentDepartmentGroupKey] int,
    [Budget] int)
GO
ALTER TABLE [dbo].[DimDepartmentGroup]
ALTER COLUMN [Budget] bigint NOT NULL
ALTER TABLE [dbo].[DimDepartmentGroup] WITH CHECK ADD
    CONSTRAINT [PK_DimDepartmentGroup] PRIMARY KEY CLUSTERED ([DepartmentGroupKey]) ON [PRIMARY]
ALTER TABLE [dbo].[DimCustomer] ADD
\tCONSTRAINT [FK_DimCustomer_DimGeography] FOREIGN KEY
\t(
\t\t[GeographyKey]
\t)
\tREFERENCES [dbo].[DimGeography] ([GeographyKey])

ALTER TABLE [dbo].[DimDepartmentGroup] ADD
    CONSTRAINT [FK_DimDepartmentGroup_DimDepartmentGroup] FOREIGN KEY
    (
        [ParentDepartmentGroupKey]
    ) REFERENCES [dbo].[DimDepartmentGroup] ([DepartmentGroupKey]);
GO
"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = load_ddl(ddl, dialect="tsql")
    assert [t.id for t in s] == ["dbo.DimGeography", "dbo.DimCustomer", "dbo.DimDepartmentGroup"]
    assert s["dbo.DimCustomer"].foreign_keys == [ForeignKey(("GeographyKey",), "dbo.DimGeography", ("GeographyKey",))]
    group = s["dbo.DimDepartmentGroup"]
    assert group.foreign_keys == [
        ForeignKey(("ParentDepartmentGroupKey",), "dbo.DimDepartmentGroup", ("DepartmentGroupKey",))]
    assert group.primary_key == ("DepartmentGroupKey",)
    assert group.column("Budget").type == "BIGINT"  # ALTER COLUMN on its own line is part of its ALTER TABLE
    assert s["dbo.DimCustomer"].column("Code").unique
    # a CREATE TABLE after a statement without its ';' is a table of its own in T-SQL; the elements of
    # CREATE SCHEMA stay its own
    s = load_ddl("CREATE TABLE a (id INT PRIMARY KEY);\nCREATE INDEX ix ON a (id)\nCREATE TABLE b (id INT)\n"
                 "GO\nCREATE SCHEMA s AUTHORIZATION dbo\nCREATE TABLE c (a_id INT REFERENCES a (id))\nGO", dialect="tsql")
    assert [t.id for t in s] == ["main.a", "main.b", "s.c"]
    # other dialects need their ';': the statement is skipped with the table, and warned of
    with pytest.warns(UserWarning, match="';' missing"):
        assert [t.id for t in load_ddl("CREATE TABLE a (id INT);\nCREATE INDEX ix ON a (id)\nCREATE TABLE b (id INT);",
                                       dialect="postgres")] == ["main.a"]


def test_tsql_routine_bodies_hold_no_tables() -> None:
    # WideWorldImporters' procedures: a temporary table and ALTER TABLEs in a body that runs to the GO,
    # after a ';' or none; before, those after a ';' were read (#CityChanges was a table)
    ddl = """CREATE TABLE [Application].[Cities] ([CityID] int NOT NULL PRIMARY KEY, [CityName] nvarchar(50));
GO
CREATE PROCEDURE [Integration].[GetCityUpdates] @LastCutoff datetime2(7)
AS
BEGIN
    SET NOCOUNT ON;
    CREATE TABLE #CityChanges ([WWI City ID] int, [City] nvarchar(50))
    ALTER TABLE #CityChanges ADD [Valid To] datetime2(7)
    CREATE INDEX ix ON #CityChanges ([WWI City ID]);
    ALTER TABLE [Application].[Cities] ADD [Population] bigint;
    IF @LastCutoff IS NULL
        CREATE TABLE #Other (x int)
    SELECT * FROM #CityChanges;
END;
GO
CREATE OR ALTER PROC dbo.Reload AS
    SET XACT_ABORT ON;
    CREATE TABLE #Work (x int)
GO
CREATE TRIGGER dbo.OnCities ON [Application].[Cities] AFTER INSERT AS
BEGIN
    PRINT 'x';
    ALTER TABLE [Application].[Cities] ADD [Touched] bit
END
GO
CREATE TABLE [Application].[Countries] ([CountryID] int NOT NULL PRIMARY KEY, [Function] int)
ALTER TABLE [Application].[Cities] ADD [CountryID] int REFERENCES [Application].[Countries] ([CountryID])
GO
"""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = load_ddl(ddl, dialect="tsql")
    assert [t.id for t in s] == ["Application.Cities", "Application.Countries"]
    cities = s["Application.Cities"]
    assert [c.name for c in cities.columns] == ["CityID", "CityName", "CountryID"]
    assert cities.foreign_keys == [ForeignKey(("CountryID",), "Application.Countries", ("CountryID",))]
    # a body whose every statement ends with ';'
    s = load_ddl("CREATE TABLE a (id INT);\nGO\nCREATE PROCEDURE p AS\nBEGIN\n  SET NOCOUNT ON;\n"
                 "  CREATE TABLE #t (x INT);\n  ALTER TABLE a ADD y INT;\nEND;\nGO\n", dialect="tsql")
    assert [(t.name, [c.name for c in t.columns]) for t in s] == [("a", ["id"])]



def test_oracle_types() -> None:
    ddl = """
CREATE TABLE dept (id NUMBER(10) PRIMARY KEY, name VARCHAR2(50 CHAR));
CREATE TABLE emp (
    id NUMBER(10) CONSTRAINT emp_pk PRIMARY KEY,
    salary NUMBER(12, 2),
    hired DATE,
    dept_id NUMBER(10) CONSTRAINT emp_dept_fk REFERENCES dept(id)
);
"""
    s = load_ddl(ddl, dialect="oracle")
    emp = s["main.emp"]
    assert [c.type for c in emp.columns] == ["NUMBER(10)", "NUMBER(12, 2)", "DATE", "NUMBER(10)"]
    assert [c.family for c in emp.columns] == [
        TypeFamily.INTEGER,
        TypeFamily.REAL,
        TypeFamily.DATETIME,
        TypeFamily.INTEGER,
    ]
    assert s["main.dept"].column("name").type == "VARCHAR2(50 CHAR)"
    assert emp.primary_key == ("id",)
    assert emp.foreign_keys == [ForeignKey(("dept_id",), "main.dept", ("id",))]


def test_sqlite_untyped_columns_and_table_options() -> None:
    ddl = """
CREATE TABLE p (a INTEGER PRIMARY KEY AUTOINCREMENT, b) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "c" (x INTEGER REFERENCES p, y, "z w" TEXT) STRICT;
"""
    s = load_ddl(ddl, dialect="sqlite")
    assert [(c.name, c.type) for c in s["main.p"].columns] == [("a", "INTEGER"), ("b", "")]
    assert [c.name for c in s["main.c"].columns] == ["x", "y", "z w"]
    assert s["main.c"].foreign_keys == [ForeignKey(("x",), "main.p", ("a",))]


def test_default_dialect_quoted_identifiers() -> None:
    ddl = 'CREATE TABLE "frpm table" ("CDSCode" TEXT PRIMARY KEY, "Free Meal Count (K-12)" REAL);'
    s = load_ddl(ddl)
    assert s.dialect is None
    assert [c.name for c in s["main.frpm table"].columns] == ["CDSCode", "Free Meal Count (K-12)"]


def test_same_table_name_in_two_schemas() -> None:
    ddl = """
CREATE TABLE a.t (id int PRIMARY KEY, b_id int REFERENCES b.t(id));
CREATE TABLE b.t (id int PRIMARY KEY, name text);
CREATE TABLE a.u (id int, t_id int REFERENCES t(id));
CREATE TABLE b.v (t_id int REFERENCES t);
CREATE TABLE w (t_id int REFERENCES t(id));
"""
    s = load_ddl(ddl, dialect="postgres")
    assert [t.id for t in s] == ["a.t", "b.t", "a.u", "b.v", "main.w"]
    assert s["a.t"].foreign_keys == [ForeignKey(("b_id",), "b.t", ("id",))]
    # Unqualified references resolve in the referencing table's database first.
    assert s["a.u"].foreign_keys == [ForeignKey(("t_id",), "a.t", ("id",))]
    assert s["b.v"].foreign_keys == [ForeignKey(("t_id",), "b.t", ("id",))]
    # main.t does not exist: the dangling key is dropped.
    assert s["main.w"].foreign_keys == []


# -- sources ------------------------------------------------------------------------------


def test_sql_file_path(tmp_path: Path) -> None:
    path = tmp_path / "create_schema.sql"
    path.write_text("\ufeff" + MYSQL_DUMP, encoding="utf-8")  # with a BOM
    by_path = load_ddl(path, dialect="mysql")
    by_str = load_ddl(str(path), dialect="mysql")
    assert [t.id for t in by_path] == [t.id for t in by_str] == [
        "main.customers",
        "main.Café Orders",
        "main.order_tags",
    ]
    other = tmp_path / "ddl.txt"  # an existing file with another suffix
    other.write_text("CREATE TABLE x (a int);", encoding="utf-8")
    assert [t.id for t in load_ddl(str(other))] == ["main.x"]


def test_a_pipe_is_read_like_a_file() -> None:
    # what --ddl <(pg_dump --schema-only db) passes: /dev/fd/N, a pipe, not a regular file. The
    # text is in the pipe and its write end closed before it is read: nothing here can block.
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb") as writer:  # closed here, once, whatever the write does
            writer.write(b"CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE b (a_id INT REFERENCES a(id));")
        path = Path(f"/dev/fd/{read_end}")
        if not path.exists():
            pytest.skip("no /dev/fd on this system")
        assert [t.id for t in load_ddl(path)] == ["main.a", "main.b"]
    finally:
        os.close(read_end)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        load_ddl(tmp_path / "nope.sql")
    with pytest.raises(SourceError, match="nope.sql"):
        load_ddl(str(tmp_path / "nope.sql"))
    with pytest.raises(SourceError, match="directory"):
        load_ddl(tmp_path)
    latin1 = tmp_path / "latin1.sql"
    latin1.write_bytes("CREATE TABLE caf\xe9 (a int);".encode("latin-1"))
    with pytest.raises(SourceError, match="UTF-8"):
        load_ddl(latin1)


# -- errors -------------------------------------------------------------------------------


def test_malformed_statement_is_named() -> None:
    ddl = "CREATE TABLE a (x int);\nCREATE TABLE b (a int b c d);\nCREATE TABLE c (y int);"
    with pytest.raises(DDLParseError) as err:
        load_ddl(ddl)
    msg = str(err.value)
    assert "\n" not in msg
    assert "statement 2" in msg and "line 2" in msg and "CREATE TABLE b (a int b c d)" in msg


def test_unsupported_create_table_is_named() -> None:
    # A missing semicolon: sqlglot cannot read the statement, two tables would be merged.
    with pytest.raises(DDLParseError, match=r"statement 1 .*CREATE TABLE t \(a int\) CREATE TABLE u"):
        load_ddl("CREATE TABLE t (a int) CREATE TABLE u (b int)")


def test_tokenizer_error_names_the_line() -> None:
    with pytest.raises(DDLParseError) as err:
        load_ddl("CREATE TABLE a (x int);\nINSERT INTO a VALUES ('abc);")
    msg = str(err.value)
    assert "\n" not in msg and "line 2" in msg and "INSERT INTO a" in msg


def test_no_tables() -> None:
    with pytest.raises(SchemaError, match="has no tables"):
        load_ddl("INSERT INTO t VALUES (1); CREATE INDEX i ON t (a);")
    with pytest.raises(SchemaError, match="has no tables"):
        load_ddl("   ")
    with pytest.raises(SchemaError, match="has no tables"):
        load_ddl("-- nothing here\n")


def test_table_without_columns() -> None:
    with pytest.raises(SchemaError, match=r"'main\.t' has no columns"):
        load_ddl("CREATE TABLE ok (a int); CREATE TABLE t ();", dialect="postgres")
    with pytest.raises(SchemaError, match=r"'main\.u' has no columns"):
        load_ddl("CREATE TABLE u AS SELECT 1 AS a")


def test_unknown_dialect() -> None:
    with pytest.raises(InvalidArgumentError, match="nosuchsql"):
        load_ddl("CREATE TABLE t (a int)", dialect="nosuchsql")


# -- hostile and malformed DDL --------------------------------------------------------------------------------


def test_tsql_temporary_tables_keep_their_hash() -> None:
    s = load_ddl(
        "CREATE TABLE #orders (id INT PRIMARY KEY, g INT REFERENCES ##globals(id));"
        "CREATE TABLE ##globals (id INT PRIMARY KEY);",
        dialect="tsql",
    )
    assert [t.name for t in s] == ["#orders", "##globals"]
    assert [fk.ref_table for fk in s["#orders"].foreign_keys] == ["main.##globals"]


def test_duplicate_tables_and_columns_warn() -> None:
    with pytest.warns(UserWarning, match="'id' more than once"):
        s = load_ddl("CREATE TABLE a (id INT, name TEXT, id INT);")
    assert [c.name for c in s["a"].columns] == ["id", "name"]
    with pytest.warns(UserWarning, match="created twice.*later definition replaces it"):
        s = load_ddl("CREATE TABLE a (x INT); CREATE TABLE a (y INT);")
    assert [c.name for c in s["a"].columns] == ["y"]
    with pytest.warns(UserWarning, match="earlier definition is kept"):
        s = load_ddl("CREATE TABLE a (x INT); CREATE TABLE IF NOT EXISTS a (y INT);")
    assert [c.name for c in s["a"].columns] == ["x"]


def test_deeply_nested_ddl_is_a_parse_error() -> None:
    with pytest.raises(DDLParseError, match="statement 2 nests too deeply"):
        load_ddl("CREATE TABLE ok (id INT); CREATE TABLE t (a INT DEFAULT " + "(" * 2000 + "1" + ")" * 2000 + ");")


def test_mysql_client_delimiter_blocks_hold_no_tables_but_their_own() -> None:
    # mysqldump / Sakila: triggers and procedures between DELIMITER lines; a temporary table in a
    # procedure's body is no table of the schema, a table defined at the block's delimiter is
    ddl = """CREATE TABLE film (film_id int PRIMARY KEY, title text);
DELIMITER ;;
CREATE TRIGGER ins_film AFTER INSERT ON film FOR EACH ROW BEGIN
    INSERT INTO film_text (film_id) VALUES (new.film_id);
END;;
DELIMITER ;
DELIMITER //
CREATE PROCEDURE rewards_report () BEGIN
    CREATE TEMPORARY TABLE tmpCustomer (customer_id INT NOT NULL PRIMARY KEY);
    DROP TABLE tmpCustomer;
END //
CREATE TABLE film_text (film_id int PRIMARY KEY, description text)//
DELIMITER ;
CREATE TABLE broken (
"""
    with pytest.raises(DDLParseError, match="line 14"):  # line numbers are still the file's
        load_ddl(ddl, dialect="mysql")
    schema = load_ddl(ddl.rsplit("CREATE TABLE broken", 1)[0], dialect="mysql")
    assert [t.name for t in schema.tables] == ["film", "film_text"]


def test_tpch_reference_keys_db2_style() -> None:
    # TPC-H's dss.ri: keys added in the connection's schema (TPCD.) to tables created without it,
    # foreign keys named after FOREIGN KEY, references without columns (the primary key)
    ddl = """CREATE TABLE NATION (N_NATIONKEY INTEGER NOT NULL, N_REGIONKEY INTEGER NOT NULL);
CREATE TABLE REGION (R_REGIONKEY INTEGER NOT NULL, R_NAME CHAR(25));
CONNECT TO TPCD;
ALTER TABLE TPCD.REGION ADD PRIMARY KEY (R_REGIONKEY);
ALTER TABLE TPCD.NATION ADD PRIMARY KEY (N_NATIONKEY);
ALTER TABLE TPCD.NATION ADD FOREIGN KEY NATION_FK1 (N_REGIONKEY) references TPCD.REGION;
COMMIT WORK;
"""
    schema = load_ddl(ddl)
    nation = schema["main.NATION"]
    assert nation.primary_key == ("N_NATIONKEY",)
    assert nation.foreign_keys == [ForeignKey(("N_REGIONKEY",), "main.REGION", ("R_REGIONKEY",))]


def test_alter_of_an_unknown_table_warns() -> None:
    ddl = "CREATE TABLE a (id INT);\nALTER TABLE b ADD PRIMARY KEY (id);\n"
    with pytest.warns(UserWarning, match=r"ALTER TABLE 'main.b' \(statement 2\) names no table"):
        schema = load_ddl(ddl)
    assert schema["main.a"].primary_key == ()


def test_pg_dump_clean_drops_before_the_tables_do_not_warn() -> None:
    # pg_dump --clean --if-exists: every constraint and default is dropped before its table is
    # created again; a drop of something unknown loses nothing (Lago's dump printed 478 warnings)
    ddl = """
    ALTER TABLE IF EXISTS ONLY public.b DROP CONSTRAINT IF EXISTS b_a_fk;
    ALTER TABLE public.b ALTER COLUMN id DROP DEFAULT;
    DROP TABLE IF EXISTS public.b;
    CREATE TABLE public.a (id bigint NOT NULL);
    CREATE TABLE public.b (id bigint NOT NULL, a_id bigint);
    ALTER TABLE ONLY public.b ADD CONSTRAINT b_a_fk FOREIGN KEY (a_id) REFERENCES public.a(id);
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema = load_ddl(ddl, dialect="postgres")
    assert schema["public.b"].foreign_keys[0].ref_table == "public.a"


# -- partitions and inheritance (PostgreSQL) --------------------------------------------------

# Sakila's PostgreSQL schema: payment_p2007_01 ... are INHERITS children with only a CHECK constraint;
# pg_dump writes partitions as tables with columns and ALTER TABLE ... ATTACH PARTITION.
PARTITIONED = """
CREATE TABLE customer (customer_id int PRIMARY KEY, name text);
CREATE TABLE payment (payment_id int, customer_id int REFERENCES customer, amount numeric, paid_on date)
  PARTITION BY RANGE (paid_on);
CREATE TABLE payment_2024 PARTITION OF payment FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE public.payment_2025 (payment_id integer, customer_id integer, amount numeric, paid_on date);
ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_2025 FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE rental (rental_id int PRIMARY KEY, customer_id int, rented_on date);
CREATE TABLE rental_p2007_01 (CONSTRAINT rental_p2007_01_check CHECK ((rented_on >= '2007-01-01'))) INHERITS (rental);
CREATE TABLE rental_p2007_01_a () INHERITS (rental_p2007_01);
CREATE TABLE rental_late (late_fee numeric) INHERITS (rental);
CREATE TABLE refund (refund_id int, payment_id int, rental_id int REFERENCES rental_p2007_01 (rental_id));
"""


def test_partitions_and_copy_children_are_left_out() -> None:
    s = load_ddl(PARTITIONED, dialect="postgres", database="public")
    assert [t.name for t in s] == ["customer", "payment", "rental", "rental_late", "refund"]
    # a child gets its parent's columns before its own
    assert [c.name for c in s["rental_late"].columns] == ["rental_id", "customer_id", "rented_on", "late_fee"]
    assert not s["rental_late"].primary_key  # PostgreSQL does not inherit keys
    # a reference to a partition is one to the table that holds its rows
    assert [(fk.ref_table, fk.ref_columns) for fk in s["refund"].foreign_keys] == [("public.rental", ("rental_id",))]


def test_partitions_kept_on_request() -> None:
    s = load_ddl(PARTITIONED, dialect="postgres", database="public", partitions=True)
    names = [t.name for t in s]
    assert {"payment_2024", "payment_2025", "rental_p2007_01", "rental_p2007_01_a"} <= set(names)
    assert [c.name for c in s["payment_2024"].columns] == ["payment_id", "customer_id", "amount", "paid_on"]
    assert [c.name for c in s["rental_p2007_01_a"].columns] == ["rental_id", "customer_id", "rented_on"]
    assert [fk.ref_table for fk in s["refund"].foreign_keys] == ["public.rental_p2007_01"]


def test_a_partition_without_its_parent_is_kept() -> None:
    s = load_ddl("CREATE TABLE payment_2024 (id int, paid_on date);"
                 "ALTER TABLE payment ATTACH PARTITION payment_2024 FOR VALUES IN (2024);", dialect="postgres")
    assert [t.name for t in s] == ["payment_2024"]
    with pytest.raises(SchemaError, match=r"'main\.payment_2024' has no columns: .* takes them from 'payment', "
                       "which it does not define"):
        load_ddl("CREATE TABLE payment_2024 PARTITION OF payment FOR VALUES IN (2024);", dialect="postgres")
    with pytest.warns(UserWarning, match="inherits from 'nowhere', which is not defined"):
        load_ddl("CREATE TABLE t (a int) INHERITS (nowhere);", dialect="postgres")


def test_create_schema_with_its_elements() -> None:
    # PostgreSQL (AdventureWorks-for-Postgres): CREATE SCHEMA s CREATE TABLE ... CREATE TABLE ... is one statement
    s = load_ddl("""
    CREATE SCHEMA Person
      CREATE TABLE BusinessEntity (BusinessEntityID SERIAL PRIMARY KEY)
      CREATE TABLE Person (BusinessEntityID INT REFERENCES BusinessEntity, FirstName TEXT)
      CREATE VIEW vPerson AS SELECT 1
      GRANT ALL ON Person TO bob;
    CREATE SCHEMA IF NOT EXISTS Sales AUTHORIZATION bob
      CREATE TABLE Customer (CustomerID INT PRIMARY KEY, PersonID INT REFERENCES Person.Person (BusinessEntityID));
    CREATE SCHEMA AUTHORIZATION hr CREATE TABLE Employee (id INT);
    CREATE SCHEMA empty;
    COMMENT ON TABLE Person.Person IS 'Human beings';
    """, dialect="postgres")
    assert [t.id for t in s] == ["Person.BusinessEntity", "Person.Person", "Sales.Customer", "hr.Employee"]
    assert s["Person.Person"].sql_schema == "Person" and s["Person.Person"].comment == "Human beings"
    assert [fk.ref_table for fk in s["Person.Person"].foreign_keys] == ["Person.BusinessEntity"]
    assert [fk.ref_table for fk in s["Sales.Customer"].foreign_keys] == ["Person.Person"]


def test_psql_meta_commands_and_copy_data_are_not_sql() -> None:
    # pg_dump with data: COPY ... FROM stdin rows (an apostrophe, a \N) up to \.; psql's \connect, \copy
    ddl = (
        "\\restrict abc123\n\\connect shop\n"
        "CREATE TABLE customer (id int PRIMARY KEY, name text);\n"
        "COPY public.customer (id, name) FROM stdin;\n1\tO'Brien\n\\N\tx\n\\.\n"
        "\\copy customer FROM 'customer.csv' CSV\n"
        "CREATE TABLE orders (id int, customer_id int REFERENCES customer);\n"
    )
    assert [t.name for t in load_ddl(ddl, dialect="postgres")] == ["customer", "orders"]


def test_alter_table_drops_and_renames() -> None:
    s = load_ddl("""
    CREATE TABLE employee (id int PRIMARY KEY, org_level int, dept int REFERENCES department, mgr int);
    CREATE TABLE department (id int PRIMARY KEY);
    ALTER TABLE employee DROP COLUMN org_level;
    ALTER TABLE employee DROP COLUMN IF EXISTS dept, DROP COLUMN nothing_here;
    ALTER TABLE employee RENAME COLUMN mgr TO manager_id;
    ALTER TABLE employee RENAME COLUMN id TO employee_id;
    ALTER TABLE department RENAME TO dept;
    """, dialect="postgres")
    assert [t.name for t in s] == ["employee", "dept"]
    assert [c.name for c in s["employee"].columns] == ["employee_id", "manager_id"]
    assert s["employee"].primary_key == ("employee_id",) and not s["employee"].foreign_keys


def test_inherits_inside_create_schema_finds_the_parent_in_that_schema() -> None:
    s = load_ddl("CREATE SCHEMA shop CREATE TABLE rental (id int, d date)"
                 " CREATE TABLE rental_2024 (CHECK (d > '2024-01-01')) INHERITS (rental)"
                 " CREATE TABLE late (fee int) INHERITS (rental);", dialect="postgres")
    assert [(t.id, [c.name for c in t.columns]) for t in s] == [
        ("shop.rental", ["id", "d"]), ("shop.late", ["id", "d", "fee"])]



def test_a_domain_is_read_as_its_base_type_and_joins_as_one():
    # PostgreSQL domains (AdventureWorks' "OrderNumber", Sakila's year): a column declared with
    # one has the domain's base type, as a live database reports it; a domain sqlglot cannot read
    # is left as declared
    ddl = """
    CREATE DOMAIN "OrderNumber" varchar(25) NULL;
    CREATE DOMAIN public.year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155);
    CREATE DOMAIN "Flag" boolean NOT NULL;
    CREATE TABLE WorkOrder (WorkOrderID serial PRIMARY KEY, OrderQty int);
    CREATE TABLE WorkOrderRouting (WorkOrderID int, OperationSequence smallint, PRIMARY KEY (WorkOrderID, OperationSequence));
    CREATE TABLE SalesOrderHeader (SalesOrderID serial PRIMARY KEY, PurchaseOrderNumber "OrderNumber",
                                   OnlineOrderFlag "Flag", FiscalYear public.year, Note "NoSuchDomain");
    CREATE TABLE SalesOrderDetail (SalesOrderID int, SalesOrderDetailID serial, PRIMARY KEY (SalesOrderID, SalesOrderDetailID));
    """
    schema = load_ddl(ddl, dialect="postgres")
    types = {c.name: c.type for c in schema["SalesOrderHeader"].columns}
    assert types == {"SalesOrderID": "SERIAL", "PurchaseOrderNumber": "VARCHAR(25)", "OnlineOrderFlag": "BOOLEAN",
                     "FiscalYear": "INT", "Note": '"NoSuchDomain"'}
    from jar_core.joins import build_join_graph

    cols = [f"{t.name}.{c.name}" for t in schema.tables for c in t.columns]
    g = build_join_graph(schema)
    # a purchase order *number* of text is no work order's integer key (read as a number, it was)
    assert sorted(f"{cols[a]} -> {cols[b]}" for a, b in zip(g.a, g.b)) == [
        "SalesOrderDetail.SalesOrderID -> SalesOrderHeader.SalesOrderID",
        "WorkOrderRouting.WorkOrderID -> WorkOrder.WorkOrderID",
    ]


def test_a_column_type_sqlglot_reads_as_a_keyword_is_read_as_a_type():
    # MusicBrainz's medium_index uses the cube extension's type, a keyword to sqlglot (GROUP BY CUBE)
    s = load_ddl("""
    CREATE TABLE medium_index (medium INTEGER, toc CUBE, tocs CUBE[] NOT NULL);
    CREATE TABLE medium (id SERIAL PRIMARY KEY, name TEXT);
    """, dialect="postgres")
    assert [(c.name, c.type) for c in s["main.medium_index"].columns] == [
        ("medium", "INT"), ("toc", "CUBE"), ("tocs", "CUBE[]")]
    # a statement that is no table definition still fails, naming it
    with pytest.raises(DDLParseError, match="statement 1"):
        load_ddl("CREATE TABLE t (a INT, CUBE CUBE CUBE);", dialect="postgres")


def test_a_computed_column_is_read_as_one_and_joins_nothing():
    # WideWorldImporters' Invoices.ConfirmedReceivedBy is computed from a JSON document (AS (...),
    # no type): it held no key, yet its name ("received by", a person's role) joined People.PersonID
    # at 0.68; PostgreSQL's GENERATED ALWAYS AS ... STORED reads the same
    ddl = """
    CREATE TABLE People (PersonID int PRIMARY KEY, FullName nvarchar(50));
    CREATE TABLE Invoices (InvoiceID int PRIMARY KEY, ReturnedDeliveryData nvarchar(max),
                           ConfirmedReceivedBy AS (json_value(ReturnedDeliveryData, N'$.ReceivedBy')),
                           LastEditedBy int);
    """
    schema = load_ddl(ddl, dialect="tsql")
    assert [c.name for c in schema["Invoices"].columns if c.computed] == ["ConfirmedReceivedBy"]
    from jar_core.joins import build_join_graph

    cols = [f"{t.name}.{c.name}" for t in schema.tables for c in t.columns]
    g = build_join_graph(schema)
    got = sorted(f"{cols[a]} -> {cols[b]}" for a, b in zip(g.a, g.b))
    assert got == ["Invoices.LastEditedBy -> People.PersonID"], got
    pg = load_ddl("CREATE TABLE t (a int, b int GENERATED ALWAYS AS (a * 2) STORED);"
                  "CREATE TABLE u (c int) INHERITS (t);", dialect="postgres")
    assert [c.computed for c in pg["t"].columns] == [False, True]
    assert [(c.name, c.computed) for c in pg["u"].columns] == [("a", False), ("b", True), ("c", False)]  # inherited
    assert type(pg["t"].columns[1]).from_dict(pg["t"].columns[1].to_dict()).computed  # kept in an index


# An Oracle SQL*Plus script (Oracle's sample schemas: REM and PROMPT lines, SET, a lone "/" that
# runs the statement before it, an @script) and the parenthesised ADD of its ALTER TABLE.
SQLPLUS_SCRIPT = """
rem Creates the HR schema
SET ECHO OFF
SET FEEDBACK 1
Prompt ******  Creating REGIONS table ....

CREATE TABLE regions
    ( region_id      NUMBER CONSTRAINT region_id_nn NOT NULL
    , region_name    VARCHAR2(25)
    );
ALTER TABLE regions ADD ( CONSTRAINT reg_id_pk PRIMARY KEY (region_id) ) ;

REM countries hang off regions
@@hr_comments.sql
CREATE TABLE countries
    ( country_id      CHAR(2)
    , region_id       NUMBER
    )
/
ALTER TABLE countries
ADD ( CONSTRAINT countr_reg_fk FOREIGN KEY (region_id) REFERENCES regions(region_id) ENABLE NOVALIDATE ) ;
"""

# What Oracle's own exports write (SQL Developer, DBMS_METADATA.GET_DDL): a state after every
# constraint and a key's index with its physical attributes.
ORACLE_EXPORT = """
  CREATE TABLE "HR"."DEPARTMENTS"
   (	"DEPARTMENT_ID" NUMBER(4,0),
	"DEPARTMENT_NAME" VARCHAR2(30 BYTE) CONSTRAINT "DEPT_NAME_NN" NOT NULL ENABLE,
	"MANAGER_ID" NUMBER(6,0),
	 CONSTRAINT "DEPT_ID_PK" PRIMARY KEY ("DEPARTMENT_ID")
  USING INDEX PCTFREE 10 INITRANS 2 MAXTRANS 255 COMPUTE STATISTICS
  STORAGE(INITIAL 65536 NEXT 1048576 MINEXTENTS 1 BUFFER_POOL DEFAULT)
  TABLESPACE "USERS"  ENABLE
   ) SEGMENT CREATION IMMEDIATE
  PCTFREE 10 PCTUSED 40 INITRANS 1 MAXTRANS 255 NOCOMPRESS LOGGING
  TABLESPACE "USERS" ;
  CREATE TABLE "HR"."EMPLOYEES"
   (	"EMPLOYEE_ID" NUMBER(6,0),
	"EMAIL" VARCHAR2(25 BYTE) CONSTRAINT "EMP_EMAIL_NN" NOT NULL ENABLE,
	"ENABLE" NUMBER(1,0),
	"DEPARTMENT_ID" NUMBER(4,0),
	 CONSTRAINT "EMP_EMAIL_UK" UNIQUE ("EMAIL")
  USING INDEX PCTFREE 10 TABLESPACE "USERS"  ENABLE,
	 CONSTRAINT "EMP_EMP_ID_PK" PRIMARY KEY ("EMPLOYEE_ID")
  USING INDEX TABLESPACE "USERS"  ENABLE,
	 CONSTRAINT "EMP_DEPT_FK" FOREIGN KEY ("DEPARTMENT_ID")
	  REFERENCES "HR"."DEPARTMENTS" ("DEPARTMENT_ID") RELY DISABLE NOVALIDATE
   ) TABLESPACE "USERS" ;
  ALTER TABLE "HR"."DEPARTMENTS" ADD CONSTRAINT "DEPT_MGR_FK" FOREIGN KEY ("MANAGER_ID")
	  REFERENCES "HR"."EMPLOYEES" ("EMPLOYEE_ID") ENABLE;
"""


def test_an_oracle_sqlplus_script_is_read_without_its_client_commands() -> None:
    s = load_ddl(SQLPLUS_SCRIPT, dialect="oracle")
    assert [t.name for t in s.tables] == ["regions", "countries"]
    assert s["main.regions"].primary_key == ("region_id",)
    assert s["main.countries"].foreign_keys == [ForeignKey(("region_id",), "main.regions", ("region_id",))]
    # read in another dialect, the REM line swallows the table after it: said, not a silent empty schema
    with pytest.raises(SchemaError, match=r"CREATE TABLE at line 4 .* ';' missing .* dialect='oracle'"):
        load_ddl("rem Creates the HR schema\n" + SQLPLUS_SCRIPT.split("SET FEEDBACK 1\n", 1)[1].split("ALTER", 1)[0])


def test_an_oracle_export_with_constraint_states_and_index_attributes() -> None:
    s = load_ddl(ORACLE_EXPORT, dialect="oracle")
    dept, emp = s["HR.DEPARTMENTS"], s["HR.EMPLOYEES"]
    assert dept.primary_key == ("DEPARTMENT_ID",) and emp.primary_key == ("EMPLOYEE_ID",)
    assert [c.name for c in emp.columns] == ["EMPLOYEE_ID", "EMAIL", "ENABLE", "DEPARTMENT_ID"]  # a column named ENABLE stays
    assert emp.column("EMAIL").unique
    assert emp.foreign_keys == [ForeignKey(("DEPARTMENT_ID",), "HR.DEPARTMENTS", ("DEPARTMENT_ID",))]
    assert dept.foreign_keys == [ForeignKey(("MANAGER_ID",), "HR.EMPLOYEES", ("EMPLOYEE_ID",))]


def test_a_table_after_a_statement_without_its_semicolon_is_not_lost_silently() -> None:
    with pytest.warns(UserWarning, match=r"CREATE TABLE at line 3 is read as part of statement 2 .* ';' missing"):
        s = load_ddl("CREATE TABLE a (id INT PRIMARY KEY);\nCREATE INDEX ix ON a (id)\n"
                     "CREATE TABLE b (id INT);\nCREATE TABLE c (x INT);")
    assert [t.name for t in s.tables] == ["a", "c"]
    # a routine's own temporary table is no table of the schema, and no warning
    import warnings as w
    with w.catch_warnings():
        w.simplefilter("error")
        load_ddl("CREATE TABLE a (id INT);\nCREATE PROCEDURE p() BEGIN\n  CREATE TEMPORARY TABLE t (x INT)\nEND;")


# -- enumerations (PostgreSQL's CREATE TYPE ... AS ENUM) ----------------------------------------

# pg_dump's form (zync's and Lago's db/structure.sql), a bare and a quoted name, labels added later
ENUMS = """
CREATE TYPE public.integration_state AS ENUM (
    'active',
    'disabled'
);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'it''s fine');
CREATE TYPE "Ring Color" AS ENUM ('Ruby Red');
ALTER TYPE mood ADD VALUE 'happy' AFTER 'ok';
CREATE TABLE public.integration_states (id bigint PRIMARY KEY, finished_at timestamp);
CREATE TABLE public.integrations (id bigint PRIMARY KEY, state public.integration_state DEFAULT 'active'::public.integration_state NOT NULL,
                                  integration_state integration_state);
CREATE TABLE person (id int PRIMARY KEY, current_mood mood, moods mood[], ring "Ring Color", note text);
CREATE TABLE product_categories (id uuid PRIMARY KEY, code varchar NOT NULL);
CREATE TYPE connection_category AS ENUM ('integrations', 'payment_providers');
CREATE TABLE invoice_connections (id uuid PRIMARY KEY, category connection_category);
"""


def test_an_enumeration_is_text_with_its_labels_as_sample_values() -> None:
    s = load_ddl(ENUMS, dialect="postgres", database="public")
    person, integrations = s["person"], s["integrations"]
    got = {c.name: (c.type, c.family, c.enum, c.sample) for c in [*person.columns, *integrations.columns]}
    assert got["current_mood"] == ("mood", TypeFamily.TEXT, True, ("sad", "ok", "happy", "it's fine"))
    assert got["ring"] == ('"Ring Color"', TypeFamily.TEXT, True, ("Ruby Red",))
    assert got["state"] == ("public.integration_state", TypeFamily.TEXT, True, ("active", "disabled"))
    assert got["integration_state"][2:] == (True, ("active", "disabled"))
    assert got["moods"][2:] == (False, ()) and got["note"][2:] == (False, ())  # an array of labels is no label
    again = type(s).from_dict(s.to_dict())  # kept by a saved index
    assert again["person"].column("current_mood").enum and again.fingerprint() == s.fingerprint()
    # a label the question names finds its column, as a sampled value does
    from jar_core.candidates.values import ValueIndex, match_values

    found = match_values(ValueIndex.from_schema(s), "people whose ring is ruby red and who are happy")
    assert {(s.tables[m.table].name, s.tables[m.table].columns[m.column].name) for m in found} == {
        ("person", "ring"), ("person", "current_mood")}


def test_an_enumeration_joins_nothing() -> None:
    # zync's integrations.state joined integration_states.id at 0.76; Lago's category of an
    # enumeration joined product_categories' uuid key and code
    s = load_ddl(ENUMS, dialect="postgres", database="public")
    from jar_core.joins import build_join_graph

    cols = [f"{t.name}.{c.name}" for t in s.tables for c in t.columns]
    g = build_join_graph(s)
    enums = {f"{t.name}.{c.name}" for t in s.tables for c in t.columns if c.enum}
    assert enums == {"integrations.state", "integrations.integration_state", "person.current_mood", "person.ring",
                     "invoice_connections.category"}
    assert [(cols[a], cols[b]) for a, b in zip(g.a, g.b) if {cols[a], cols[b]} & enums] == []


def test_other_create_type_forms_are_skipped_quietly() -> None:
    # composite, range, shell and base types are no tables; T-SQL's and Oracle's table types
    # were read as a CREATE TABLE sqlglot cannot parse, and the load failed
    pg = """
    CREATE TYPE public.pair AS (a integer, "table" text);
    CREATE TYPE floatrange AS RANGE (subtype = float8, subtype_diff = float8mi);
    CREATE TYPE shell;
    CREATE TYPE box3 (INPUT = my_box_in, OUTPUT = my_box_out, INTERNALLENGTH = 16);
    ALTER TYPE public.pair OWNER TO app;
    CREATE TYPE status AS ENUM ('new', 'done');
    CREATE TABLE t (id int, p public.pair, r floatrange, s status);
    """
    tsql = "CREATE TYPE dbo.Ids AS TABLE (id int);\nGO\nCREATE TABLE dbo.t (id int, p dbo.Phone);"
    oracle = ("CREATE OR REPLACE TYPE addr AS OBJECT (street varchar2(30));\n/\n"
              "CREATE OR REPLACE EDITIONABLE TYPE addrs AS TABLE OF addr;\n/\nCREATE TABLE t (id int, a addr);")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schemas = [load_ddl(pg, dialect="postgres"), load_ddl(tsql, dialect="tsql"), load_ddl(oracle, dialect="oracle")]
    assert [[t.name for t in s.tables] for s in schemas] == [["t"], ["t"], ["t"]]
    assert [(c.name, c.enum) for c in schemas[0]["t"].columns] == [("id", False), ("p", False), ("r", False), ("s", True)]


# MySQL's inline ENUM and SET (Sakila's film.rating and film.special_features), DuckDB's ENUM
INLINE_ENUMS = """
CREATE TABLE `status` (`status` varchar(10) NOT NULL, `label` varchar(50), PRIMARY KEY (`status`));
CREATE TABLE `rating` (`id` int NOT NULL, PRIMARY KEY (`id`));
CREATE TABLE `film` (
  `film_id` smallint unsigned NOT NULL AUTO_INCREMENT,
  `rating` enum('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  `special_features` SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL,
  `status` ENUM('new','it''s out') CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  `rating_id` set('1','2'),
  PRIMARY KEY (`film_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
ALTER TABLE `film` ADD COLUMN `kind` ENUM('short','feature') AFTER `rating`;
"""


def test_mysql_inline_enum_and_set_are_enumerations_that_join_nothing() -> None:
    # orders.status ENUM joined status.status (0.76) and rating_id SET('1','2') joined rating.id
    from jar_core.joins import build_join_graph
    from jar_core.candidates.values import ValueIndex, match_values

    s = load_ddl(INLINE_ENUMS, dialect="mysql")
    film = s["film"]
    got = {c.name: (c.type, c.family, c.sample) for c in film.columns if c.enum}
    assert got == {
        "rating": ("ENUM('G', 'PG', 'PG-13', 'R', 'NC-17')", TypeFamily.TEXT, ("G", "PG", "PG-13", "R", "NC-17")),
        "special_features": ("SET('Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes')", TypeFamily.TEXT,
                             ("Trailers", "Commentaries", "Deleted Scenes", "Behind the Scenes")),
        "status": ("ENUM('new', 'it''s out')", TypeFamily.TEXT, ("new", "it's out")),
        "rating_id": ("SET('1', '2')", TypeFamily.TEXT, ("1", "2")),
        "kind": ("ENUM('short', 'feature')", TypeFamily.TEXT, ("short", "feature")),
    }
    assert not film.column("film_id").enum and s["status"].column("status").sample == ()
    assert len(build_join_graph(s)) == 0
    found = match_values(ValueIndex.from_schema(s), "films rated PG-13 with deleted scenes")
    assert {s.tables[m.table].columns[m.column].name for m in found} == {"rating", "special_features"}


def test_inline_enumerations_of_other_dialects_and_their_bounds() -> None:
    from jar_core.loaders.database import DEFAULT_SAMPLE_VALUES, MAX_SAMPLE_CHARS

    many = ", ".join(f"'label {i}'" for i in range(DEFAULT_SAMPLE_VALUES + 20))
    long = "x" * (MAX_SAMPLE_CHARS + 50)
    s = load_ddl(f"CREATE TABLE t (id int, many ENUM({many}), long ENUM('{long}', 'y'), bare ENUM, tags varchar(9));",
                 dialect="mysql")
    t = s["t"]
    assert t.column("many").enum
    assert t.column("many").sample == tuple(f"label {i}" for i in range(DEFAULT_SAMPLE_VALUES))
    assert t.column("long").sample == ("x" * MAX_SAMPLE_CHARS, "y")
    assert (t.column("bare").enum, t.column("bare").sample) == (True, ())
    assert not t.column("tags").enum and not t.column("id").enum
    duck = load_ddl("CREATE TYPE mood AS ENUM ('sad', 'ok');\n"
                    "CREATE TABLE p (id INTEGER, m mood, inline ENUM('x', 'y'), ms ENUM('x')[]);", dialect="duckdb")
    assert [(c.name, c.enum, c.sample) for c in duck["p"].columns] == [
        ("id", False, ()), ("m", True, ("sad", "ok")), ("inline", True, ("x", "y")), ("ms", False, ())]
    click = load_ddl("CREATE TABLE e (id UInt32, level Enum8('debug' = 1, 'error' = 2))\n"
                     "ENGINE = MergeTree ORDER BY id;", dialect="clickhouse")
    assert (click["e"].column("level").enum, click["e"].column("level").sample) == (True, ("debug", "error"))


# -- T-SQL alias types, changed column types, renamed and same-named enumerations ---------------


def test_a_tsql_alias_type_is_read_as_its_base_type():
    # AdventureWorks' CREATE TYPE [dbo].[Phone] FROM [nvarchar](25) NULL: columns declared with an
    # alias type (qualified, bracketed or bare, in the type's schema) carried the alias's name
    ddl = """
    CREATE TYPE [dbo].[Phone] FROM [nvarchar](25) NULL
    GO
    CREATE TYPE dbo.AccountNumber FROM nvarchar(15) NOT NULL;
    CREATE TYPE Flag FROM bit;
    CREATE TYPE dbo.Ids AS TABLE (id int);
    CREATE TABLE [dbo].[Customer] ([CustomerID] int PRIMARY KEY, [Phone] [dbo].[Phone] NULL,
        [Account] dbo.AccountNumber, [Active] Flag NOT NULL, [Vip] [Flag], [Fax] Phone, [Note] dbo.Note);
    CREATE TABLE Plain (id int, p Phone);
    ALTER TABLE dbo.Customer ALTER COLUMN Note dbo.Phone NOT NULL;
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = load_ddl(ddl, dialect="tsql")
    assert {c.name: c.type for c in s["Customer"].columns} == {
        "CustomerID": "INTEGER", "Phone": "NVARCHAR(25)", "Account": "NVARCHAR(15)", "Active": "BIT", "Vip": "BIT",
        "Fax": "NVARCHAR(25)", "Note": "NVARCHAR(25)"}
    assert s["Plain"].column("p").type == "NVARCHAR(25)"  # the one type of that name, in any schema
    assert s["Customer"].column("Active").family == TypeFamily.BOOLEAN


def test_alter_column_type_modify_and_change_are_followed():
    pg = """
    CREATE TYPE mood AS ENUM ('sad', 'ok');
    CREATE TABLE t (id int PRIMARY KEY, c int, d text, e text, f mood, u int);
    ALTER TABLE t ALTER COLUMN c TYPE bigint;
    ALTER TABLE ONLY t ALTER COLUMN d SET DATA TYPE varchar(10) USING d::varchar(10), ALTER COLUMN u SET DEFAULT 1;
    ALTER TABLE t ALTER e TYPE mood USING e::mood;
    ALTER TABLE t ALTER COLUMN f TYPE text;
    ALTER TABLE t ALTER COLUMN nosuch TYPE int;
    """
    t = load_ddl(pg, dialect="postgres")["t"]
    assert [(c.name, c.type, c.enum, c.sample) for c in t.columns] == [
        ("id", "INT", False, ()), ("c", "BIGINT", False, ()), ("d", "VARCHAR(10)", False, ()),
        ("e", "mood", True, ("sad", "ok")), ("f", "TEXT", False, ()), ("u", "INT", False, ())]
    mysql = """
    CREATE TABLE `t` (`id` int PRIMARY KEY, `old` varchar(5) COMMENT 'the code', `m` int, `st` enum('a','b'));
    CREATE TABLE `u` (`id` int, `t_old` int, FOREIGN KEY (`t_old`) REFERENCES `t` (`old`));
    ALTER TABLE `t` CHANGE COLUMN `old` `code` int NOT NULL;
    ALTER TABLE `t` MODIFY `m` varchar(10);
    ALTER TABLE t MODIFY COLUMN st int, CHANGE m kind ENUM('x','y') COMMENT 'what it is';
    ALTER TABLE t CHANGE id code int;
    """
    s = load_ddl(mysql, dialect="mysql")
    assert [(c.name, c.type, c.enum, c.sample, c.comment) for c in s["t"].columns] == [
        ("id", "INT", False, (), None), ("code", "INT", False, (), "the code"),
        ("kind", "ENUM('x', 'y')", True, ("x", "y"), "what it is"), ("st", "INT", False, (), None)]
    assert s["t"].column("id").primary_key  # CHANGE to a name the table has: an error, not followed
    assert s["u"].foreign_keys == [ForeignKey(("t_old",), "main.t", ("code",))]  # the reference follows the rename
    tsql = load_ddl("CREATE TABLE t (id int, c smallint);\nGO\nALTER TABLE [dbo].[t] ALTER COLUMN [c] [bigint] NOT NULL",
                    dialect="tsql")
    assert tsql["t"].column("c").type == "BIGINT"


def test_unreadable_alter_column_forms_are_skipped_quietly():
    # sqlglot reads these as an opaque command: nothing is changed, nothing fails
    ddl = ("CREATE TABLE t (id int, c smallint); ALTER TABLE t ALTER COLUMN c TYPE; ALTER TABLE t MODIFY;"
           " ALTER TABLE t CHANGE c; ALTER TABLE nosuch MODIFY c int; ALTER TABLE nosuch ALTER COLUMN c TYPE int;")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = load_ddl(ddl, dialect="mysql")
    assert [(c.name, c.type) for c in s["t"].columns] == [("id", "INT"), ("c", "SMALLINT")]
    with pytest.raises(DDLParseError, match="statement 2"):
        load_ddl("CREATE TABLE t (id int);\nCREATE TABLE u (x INT y z w);\nALTER TABLE t ALTER COLUMN id TYPE bigint;",
                 dialect="postgres")


def test_a_renamed_enumeration_is_followed():
    ddl = """
    CREATE TYPE public.mood AS ENUM ('sad', 'ok');
    CREATE TABLE person (id int, m mood, m2 public.mood, moods mood[]);
    ALTER TYPE public.mood RENAME TO feeling;
    ALTER TYPE feeling ADD VALUE 'happy';
    CREATE TABLE later (id int, f public.feeling, m mood);
    CREATE TYPE "Ring" AS ENUM ('ruby');
    CREATE TABLE jewel (id int, r "Ring");
    ALTER TYPE "Ring" RENAME TO "Ring Color";
    """
    s = load_ddl(ddl, dialect="postgres", database="public")
    got = {f"{t.name}.{c.name}": (c.type, c.enum, c.sample) for t in s.tables for c in t.columns if c.name != "id"}
    assert got == {
        "person.m": ("feeling", True, ("sad", "ok", "happy")),
        "person.m2": ("public.feeling", True, ("sad", "ok", "happy")),
        "person.moods": ("mood[]", False, ()),
        "later.f": ("public.feeling", True, ("sad", "ok", "happy")),
        "later.m": ("mood", False, ()),  # no type of that name any more
        "jewel.r": ('"Ring Color"', True, ("ruby",)),
    }


def test_enumerations_of_two_schemas_with_one_name_are_kept_apart():
    ddl = """
    CREATE TYPE a.status AS ENUM ('open', 'closed');
    CREATE TYPE b.status AS ENUM ('draft', 'sent');
    CREATE TYPE kind AS ENUM ('x', 'y');
    ALTER TYPE b.status ADD VALUE 'read';
    CREATE TABLE a.ticket (id int, s a.status, bare status, k a.kind);
    CREATE TABLE b.letter (id int, s b.status, bare status, other a.status);
    CREATE TABLE c.misc (id int, s status, s2 c.status);
    """
    s = load_ddl(ddl, dialect="postgres")
    got = {f"{t.sql_schema}.{t.name}.{c.name}": c.sample if c.enum else None
           for t in s.tables for c in t.columns if c.name != "id"}
    assert got == {
        "a.ticket.s": ("open", "closed"), "a.ticket.bare": ("open", "closed"),  # the table's schema's
        "a.ticket.k": ("x", "y"),  # defined without a schema
        "b.letter.s": ("draft", "sent", "read"), "b.letter.bare": ("draft", "sent", "read"),
        "b.letter.other": ("open", "closed"),
        "c.misc.s": None,  # two schemas define it: neither is guessed
        "c.misc.s2": None,
    }
