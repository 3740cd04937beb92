"""Run hostile and unlucky inputs through the command and the library, each in its own process.

Every case must end with a clear answer or a one-line error: no traceback, no secret the user
typed in the output, no file of the user's lost, no hang, bounded memory, and no silently wrong
answer. One line per case; exits 1 if any case fails:

    python scripts/hostile_inputs.py            # every case
    python scripts/hostile_inputs.py -k secret  # the cases whose name holds "secret"

The cases are the audit's (saved indexes, databases, DDL, questions, threads, environment); a
PostgreSQL server is not needed (the integration tests cover what needs one).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
SECRET = "S3cr3tPw9"
CASES: list[tuple[str, Callable[[Path], str | None]]] = []


def case(fn: Callable[[Path], str | None]) -> Callable[[Path], str | None]:
    """A case returns ``None`` when it holds, else what went wrong."""
    CASES.append((fn.__name__, fn))
    return fn


#: Runs a command as its only child and writes that child's peak memory (KB) to $HOSTILE_PEAK.
_WRAP = (
    "import os, resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:]).returncode\n"
    "open(os.environ['HOSTILE_PEAK'], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(rc)\n"
)


class Run:
    """One process: return code, output and peak memory (MB)."""

    def __init__(self, args: list[str], tmp: Path, *, env: dict[str, str] | None = None, timeout: float = 240,
                 stdin: str | None = None, cwd: Path | None = None) -> None:
        peak = tmp / f".peak-{time.monotonic_ns()}"
        full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "JAR_RETRIEVAL_CACHE": str(tmp / "cache"),
                    "PYTHONPATH": str(ROOT), "HOSTILE_PEAK": str(peak), **(env or {})}
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", _WRAP, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.PIPE, env=full_env, text=True, cwd=cwd or tmp,
                                start_new_session=True)
        try:
            self.out, self.err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            self.out, self.err = proc.communicate()
            self.err += f"\n(hung: killed after {timeout:.0f} s)"
        self.seconds = time.monotonic() - t0
        self.rc = proc.returncode
        self.peak_mb = int(peak.read_text()) / 1024.0 if peak.is_file() else float("nan")

    def problem(self, *, rc: tuple[int, ...] = (0, 1, 2), secrets: tuple[str, ...] = (SECRET,)) -> str | None:
        text = self.out + self.err
        if "Traceback" in text:
            return "traceback: " + self.err.strip().splitlines()[-1][:200]
        if "(hung" in self.err:
            return self.err.strip().splitlines()[-1]
        for s in secrets:
            if s in text:
                return f"secret {s!r} shown: {text.strip()[:200]!r}"
        if self.rc not in rc:
            return f"exit status {self.rc}: {self.err.strip()[:200]}"
        return None


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "jar_core.cli", *args]


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def sqlite_db(path: Path, *statements: str, rows: dict[str, list[tuple]] | None = None) -> str:
    con = sqlite3.connect(path)
    for s in statements:
        con.execute(s)
    for table, values in (rows or {}).items():
        for v in values:
            con.execute(f'INSERT INTO "{table}" VALUES ({",".join("?" * len(v))})', v)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def shop_ddl(tmp: Path) -> Path:
    p = tmp / "shop.sql"
    p.write_text("CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT);\n"
                 "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), total INT);\n")
    return p


# -- 1. data loss --------------------------------------------------------------------------------
@case
def index_into_a_folder_with_a_meta_json(tmp: Path) -> str | None:
    proj = tmp / "proj"
    proj.mkdir()
    (proj / "meta.json").write_text("{}")
    (proj / "thesis.tex").write_text("work")
    r = Run(cli("index", "--ddl", str(shop_ddl(tmp)), "--out", str(proj), "-q"), tmp)
    if not (proj / "thesis.tex").is_file():
        return "thesis.tex was deleted"
    return r.problem()


# -- 2. secrets ----------------------------------------------------------------------------------
SECRET_URLS = [
    f"postgresql://alice:{SECRET}/db",
    f"postgresql:/alice:{SECRET}@host/db",
    f"host=h user=alice password={SECRET}",
    f"mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BX%7D%3BSERVER%3Dh%3BUID%3Dalice%3BPWD%3D{SECRET}",
    f"DRIVER={{X}};SERVER=h;UID=alice;Pwd={SECRET}",
    f"postgresql://alice:{SECRET}@127.0.0.1:1/db",
    f"mysql://alice:{SECRET}@127.0.0.1:notaport/db",
]


@case
def secrets_in_database_urls(tmp: Path) -> str | None:
    for url in SECRET_URLS:
        problem = Run(cli("retrieve", "q", "--db", url, "-q"), tmp, timeout=60).problem()
        if problem:
            return f"{url[:30]}...: {problem}"
    return None


@case
def secrets_in_the_langchain_adapter(tmp: Path) -> str | None:
    code = (
        "import sys\n"
        "from langchain_jar import JoinAwareRetriever\n"
        "from jar_core.demo import demo_url\n"
        f"for url in {SECRET_URLS[3:5]!r}:\n"
        "    try:\n"
        "        r = JoinAwareRetriever.from_database(demo_url(), engine=url)\n"
        "        print(repr(r), str(r), r.model_dump())\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
        "    try:\n"
        "        JoinAwareRetriever.from_database(url)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    return Run(py(code), tmp, timeout=120).problem()


# -- 3. statement injection through names --------------------------------------------------------
@case
def newline_in_a_table_name(tmp: Path) -> str | None:
    evil = "audit\n; DELETE FROM users; --"
    fake = "x\nJoins:\n  customers.id = payroll.ssn (declared)"
    url = sqlite_db(tmp / "evil.db", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
                    f'CREATE TABLE "{evil}" (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), action TEXT)',
                    f'CREATE TABLE "{fake}" (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id))')
    code = (
        "import sqlglot\n"
        "from jar_core import TableRetriever\n"
        f"r = TableRetriever.from_database({url!r})\n"
        "res = r.retrieve('which users did which audit action', k=3)\n"
        "sql = res.join_clause()\n"
        "parsed = sqlglot.parse(sql, read='sqlite')\n"
        "assert len([p for p in parsed if p is not None]) == 1, sql\n"
        "assert 'DELETE' not in [t.token_type.name for t in sqlglot.tokenize(sql)], sql\n"
        "from jar_core.output.render import result_text\n"
        "print(result_text(res))\n"
    )
    r = Run(py(code), tmp)
    lines = (r.out or "").splitlines()
    if any(line.lstrip().startswith(("; DELETE", "customers.id = payroll.ssn")) for line in lines):
        return "a name started a line of its own in the text"
    return r.problem(rc=(0,))


# -- 4. dotted table names and --update ----------------------------------------------------------
@case
def dotted_table_name_and_index_update(tmp: Path) -> str | None:
    db = tmp / "dots.db"
    url = sqlite_db(db, 'CREATE TABLE "sales.order" (id INTEGER PRIMARY KEY, note TEXT)',
                    'CREATE TABLE "items" (id INTEGER PRIMARY KEY, order_id INTEGER, qty INTEGER)')
    r = Run(cli("index", "--db", url, "--out", str(tmp / "idx"), "-q"), tmp)
    if r.problem(rc=(0,)):
        return "first index: " + str(r.problem(rc=(0,)))
    con = sqlite3.connect(db)
    con.execute('ALTER TABLE "sales.order" ADD COLUMN item_id INTEGER')  # a change in the dotted table
    con.commit()
    con.close()
    upd = Run(cli("index", "--db", url, "--out", str(tmp / "idx"), "--update", "-q"), tmp)
    fresh = Run(cli("index", "--db", url, "--out", str(tmp / "fresh"), "-q"), tmp)
    for run in (upd, fresh):
        if run.problem(rc=(0,)):
            return str(run.problem(rc=(0,)))
    a = Run(cli("retrieve", "items of each sales order", "--index", str(tmp / "idx"), "--json", "-k", "2"), tmp)
    b = Run(cli("retrieve", "items of each sales order", "--index", str(tmp / "fresh"), "--json", "-k", "2"), tmp)
    if a.problem(rc=(0,)) or b.problem(rc=(0,)):
        return str(a.problem(rc=(0,)) or b.problem(rc=(0,)))
    ja = [(j["left"], j["right"]) for j in json.loads(a.out)["joins"]]
    jb = [(j["left"], j["right"]) for j in json.loads(b.out)["joins"]]
    return None if ja == jb else f"updated index joins {ja} != fresh {jb}"


# -- 6. telemetry ----------------------------------------------------------------------------------
@case
def no_files_written_under_home(tmp: Path) -> str | None:
    home = tmp / "home"
    home.mkdir()
    r = Run(cli("retrieve", "-q", "-k", "2"), tmp, env={"HOME": str(home)})
    written = [str(p.relative_to(home)) for p in home.rglob("*")]
    if written:
        return f"wrote under HOME: {written[:3]}"
    return r.problem(rc=(0,))


@case
def unwritable_home_keeps_stderr_clean(tmp: Path) -> str | None:
    home = tmp / "ro-home"
    home.mkdir(mode=0o500)
    r = Run(cli("retrieve", "-q", "-k", "2"), tmp, env={"HOME": str(home)})
    if os.geteuid() != 0 and r.err.strip():
        return f"stderr: {r.err.strip()[:200]}"
    if "\x1b[" in r.err:
        return "coloured warning on stderr"
    return r.problem(rc=(0,))


# -- 7, 8. memory ----------------------------------------------------------------------------------
@case
def a_very_long_table_name(tmp: Path) -> str | None:
    name = "t" * 80_000
    url = sqlite_db(tmp / "long.db", "CREATE TABLE a (id INTEGER PRIMARY KEY)",
                    f'CREATE TABLE "{name}" (id INTEGER PRIMARY KEY, a_id INTEGER)')
    r = Run(cli("retrieve", "q", "--db", url, "-q", "--no-cache", "-k", "2"), tmp, timeout=120)
    if r.peak_mb > 1500:
        return f"peak {r.peak_mb:.0f} MB"
    return r.problem()


@case
def a_huge_text_value(tmp: Path) -> str | None:
    small = sqlite_db(tmp / "small.db", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
                      rows={"notes": [(1, "long"), (2, "short")]})
    url = sqlite_db(tmp / "big.db", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
                    rows={"notes": [(1, "x" * 200_000_000), (2, "short")]})
    base = Run(cli("retrieve", "notes", "--db", small, "-q", "--no-cache", "-k", "1"), tmp, timeout=180)
    r = Run(cli("retrieve", "notes", "--db", url, "-q", "--no-cache", "-k", "1"), tmp, timeout=180)
    if r.peak_mb - base.peak_mb > 100:
        return f"peak {r.peak_mb:.0f} MB for a 200 MB value ({base.peak_mb:.0f} MB without it)"
    return r.problem(rc=(0,))


# -- 9. threads ------------------------------------------------------------------------------------
@case
def concurrent_retrieves_with_a_small_cache(tmp: Path) -> str | None:
    code = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from jar_core.embed.embedders import CachedEmbedder, get_embedder\n"
        "from jar_core.demo import demo_url\n"
        "from jar_core import TableRetriever\n"
        "emb = CachedEmbedder(get_embedder(None), max_texts=16)\n"
        "r = TableRetriever.from_database(demo_url(), embedder=emb)\n"
        "qs = [f'books of author number {i}' for i in range(320)]\n"
        "want = [r.retrieve(q, k=2).table_ids for q in qs[:40]]\n"
        "with ThreadPoolExecutor(8) as ex:\n"
        "    got = list(ex.map(lambda q: r.retrieve(q, k=2).table_ids, qs))\n"
        "assert got[:40] == want, 'threaded answers differ from sequential ones'\n"
    )
    return Run(py(code), tmp).problem(rc=(0,))


# -- 10. DDL size ------------------------------------------------------------------------------------
@case
def twenty_thousand_tables_of_ddl(tmp: Path) -> str | None:
    ddl = tmp / "many.sql"
    ddl.write_text("".join(f"CREATE TABLE t{i} (id INT PRIMARY KEY, v INT);\n" for i in range(20_000))
                   + "CREATE TABLE wide (" + ", ".join(f"c{i} INT" for i in range(20_000)) + ");\n")
    code = (
        "import sys, time\n"
        "from jar_core.loaders import load_ddl\n"
        "t = time.perf_counter()\n"
        f"s = load_ddl({str(ddl)!r})\n"
        "print(len(s.tables), round(time.perf_counter() - t, 1))\n"
    )
    r = Run(py(code), tmp, timeout=120)
    return r.problem(rc=(0,))


# -- 11. tracebacks ---------------------------------------------------------------------------------
@case
def index_file_replaced_by_a_folder(tmp: Path) -> str | None:
    r = Run(cli("index", "--ddl", str(shop_ddl(tmp)), "--out", str(tmp / "idx"), "-q"), tmp)
    if r.problem(rc=(0,)):
        return str(r.problem(rc=(0,)))
    victim = next(p for p in (tmp / "idx").iterdir() if p.is_file() and p.name != "meta.json")
    victim.unlink()
    victim.mkdir()
    return Run(cli("retrieve", "q", "--index", str(tmp / "idx"), "-q"), tmp).problem(rc=(1, 2))


@case
def index_out_dot(tmp: Path) -> str | None:
    work = tmp / "here"
    work.mkdir()
    (work / "keep.txt").write_text("mine")
    r = Run(cli("index", "--ddl", str(shop_ddl(tmp)), "--out", ".", "-q"), tmp, cwd=work)
    if not (work / "keep.txt").is_file():
        return "keep.txt deleted"
    return r.problem()


@case
def unknown_dialect_in_benchmark_json(tmp: Path) -> str | None:
    b = tmp / "bench"
    b.mkdir()
    (b / "dev.json").write_text(json.dumps([{"question": "q", "sql": "SELECT 1 FROM a JOIN b", "db_id": "d"}]))
    (b / "dev_tables.json").write_text(json.dumps({
        "d#sep#a": {"db_id": "d", "table_name_original": "a", "column_names_original": ["id"], "column_types": ["int"]},
        "d#sep#b": {"db_id": "d", "table_name_original": "b", "column_names_original": ["id"], "column_types": ["int"]}}))
    (b / "benchmark.json").write_text(json.dumps({"name": "x", "dialect": "klingon"}))
    r = Run(cli("retrieve", "q", "--benchmark", str(b), "-q"), tmp)
    if r.rc == 0:
        return "an unknown dialect was accepted"
    return r.problem()


@case
def onnxruntime_that_fails_to_import(tmp: Path) -> str | None:
    fake = tmp / "fake"
    (fake / "onnxruntime").mkdir(parents=True)
    (fake / "onnxruntime" / "__init__.py").write_text("raise ImportError('libonnxruntime.so: cannot open shared object')\n")
    r = Run(cli("retrieve", "-q", "-k", "2"), tmp, env={"PYTHONPATH": f"{fake}{os.pathsep}{ROOT}"})
    return r.problem(rc=(0, 1))


@case
def tsql_alias_type_loop(tmp: Path) -> str | None:
    ddl = tmp / "loop.sql"
    ddl.write_text("CREATE TYPE dbo.A FROM dbo.B;\nCREATE TYPE dbo.B FROM dbo.A;\nCREATE TABLE t (x dbo.A);\n")
    return Run(cli("retrieve", "q", "--ddl", str(ddl), "--dialect", "tsql", "-q"), tmp).problem()


@case
def inherits_loop(tmp: Path) -> str | None:
    ddl = tmp / "inh.sql"
    ddl.write_text("CREATE TABLE a (x INT) INHERITS (b);\nCREATE TABLE b (y INT) INHERITS (a);\n")
    r = Run(cli("retrieve", "q", "--ddl", str(ddl), "--dialect", "postgres", "-q"), tmp)
    if "no CREATE TABLE" in r.err:
        return "says: " + r.err.strip()[:160]
    return r.problem()


# -- 12. hostile index folders ---------------------------------------------------------------------
def _index(tmp: Path) -> Path:
    out = tmp / "idx"
    Run(cli("index", "--ddl", str(shop_ddl(tmp)), "--out", str(out), "-q"), tmp)
    return out


@case
def index_file_symlinked_to_dev_zero(tmp: Path) -> str | None:
    idx = _index(tmp)
    victim = idx / "meta.json" if not (idx / "schema.sqlite").exists() else idx / "schema.sqlite"
    victim.unlink()
    victim.symlink_to("/dev/zero")
    r = Run(cli("retrieve", "q", "--index", str(idx), "-q"), tmp, timeout=60)
    if r.peak_mb > 1000:
        return f"peak {r.peak_mb:.0f} MB"
    return r.problem(rc=(1, 2))


@case
def index_file_replaced_by_a_fifo(tmp: Path) -> str | None:
    idx = _index(tmp)
    victim = next(p for p in sorted(idx.iterdir()) if p.suffix == ".npz")
    victim.unlink()
    os.mkfifo(victim)
    return Run(cli("retrieve", "q", "--index", str(idx), "-q"), tmp, timeout=60).problem(rc=(1, 2))


@case
def decompression_bomb_in_vectors_npz(tmp: Path) -> str | None:
    import numpy as np
    import zipfile

    idx = _index(tmp)
    victim = next(p for p in sorted(idx.iterdir()) if p.suffix == ".npz")
    with zipfile.ZipFile(victim) as z:
        names = z.namelist()
    with zipfile.ZipFile(victim, "w", zipfile.ZIP_DEFLATED) as z:
        for name in names:
            with z.open(name, "w", force_zip64=True) as f:
                np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False,
                                                         "shape": (1 << 30, 12)})
                chunk = bytes(1 << 20)
                for _ in range(64):  # 64 MB of zeros: a small file, a large declaration
                    f.write(chunk)
    r = Run(cli("retrieve", "q", "--index", str(idx), "-q"), tmp, timeout=120)
    if r.peak_mb > 1000:
        return f"peak {r.peak_mb:.0f} MB"
    return r.problem(rc=(1, 2))


@case
def llamaindex_persist_naming_a_hub_model(tmp: Path) -> str | None:
    code = (
        "import json, os, sys\n"
        "from pathlib import Path\n"
        "from llamaindex_jar import JoinAwareRetriever as JoinAwareTableRetriever\n"
        f"p = Path({str(tmp / 'persist')!r})\n"
        "from jar_core.demo import demo_url\n"
        "r = JoinAwareTableRetriever.from_database(demo_url())\n"
        "r.persist(p)\n"
        "f = next(p.rglob('jar_retriever.json'))\n"
        "d = json.loads(f.read_text()); d.setdefault('core', {})['embedder'] = 'evil-org/not-a-model'\n"
        "f.write_text(json.dumps(d))\n"
        "try:\n"
        "    JoinAwareTableRetriever.from_persist_dir(p)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, str(e)[:200])\n"
    )
    r = Run(py(code), tmp, env={"HF_HUB_OFFLINE": "0"}, timeout=180)
    if "huggingface.co" in r.err or "Connection" in r.err:
        return "tried to download: " + r.err.strip().splitlines()[-1][:160]
    return r.problem(rc=(0,))


# -- 13. resources ----------------------------------------------------------------------------------
@case
def a_hundred_thousand_threads(tmp: Path) -> str | None:
    r = Run(cli("retrieve", "-q", "-k", "2"), tmp, env={"JAR_RETRIEVAL_THREADS": "100000"}, timeout=120)
    return r.problem()


@case
def a_ten_megabyte_question(tmp: Path) -> str | None:
    code = (
        "import time\n"
        "from jar_core.errors import JarError\n"
        "from jar_core.demo import demo_url\n"
        "from jar_core import TableRetriever\n"
        "r = TableRetriever.from_database(demo_url())\n"
        "t = time.process_time()\n"
        "try:\n"
        "    r.retrieve('books ' * 2_000_000, k=2)\n"
        "except JarError as e:\n"
        "    print('refused:', str(e)[:120])\n"
        "assert time.process_time() - t < 5, time.process_time() - t\n"
    )
    return Run(py(code), tmp).problem(rc=(0,))


# -- 14. messages -----------------------------------------------------------------------------------
@case
def a_column_named_blank(tmp: Path) -> str | None:
    url = sqlite_db(tmp / "blank.db", 'CREATE TABLE odd ("  " INTEGER, v TEXT)', "CREATE TABLE fine (id INTEGER)")
    r = Run(cli("retrieve", "q", "--db", url, "-q", "--no-cache"), tmp)
    if r.rc != 0 and "odd" not in r.err:
        return "the message does not name the table: " + r.err.strip()[:160]
    return r.problem()


@case
def a_question_of_control_characters(tmp: Path) -> str | None:
    r = Run(cli("retrieve", "\x01\x02\x03\x1b", "-q"), tmp)
    if "empty" in r.err and "control" not in r.err:
        return "called empty: " + r.err.strip()[:160]
    return r.problem(rc=(1, 2))


@case
def auto_k_with_every_table_pinned(tmp: Path) -> str | None:
    ddl = tmp / "small.sql"
    ddl.write_text("".join(f"CREATE TABLE t{i} (id INT PRIMARY KEY, t{i - 1}_id INT);\n" for i in range(13)))
    pins = [a for i in range(13) for a in ("--include", f"t{i}")]
    r = Run(cli("retrieve", "q", "--ddl", str(ddl), "-k", "auto", *pins, "-q", "--no-cache"), tmp)
    if "13 tables included but k=10" in r.err:
        return "says: " + r.err.strip()[:160]
    return r.problem()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", metavar="TEXT", default="", help="run only the cases whose name holds TEXT")
    args = ap.parse_args(argv)
    failed = 0
    chosen = [(n, f) for n, f in CASES if args.k in n]
    for name, fn in chosen:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.monotonic()
            try:
                problem = fn(Path(d))
            except Exception as e:  # the script's own failure is a failed case too
                problem = f"the case itself failed: {type(e).__name__}: {e}"
            finally:
                for p in Path(d).rglob("*"):  # let the folder be removed
                    if p.is_dir() and not p.is_symlink():
                        p.chmod(0o700)
        failed += problem is not None
        print(f"{'FAIL' if problem else 'ok  '} {name} ({time.monotonic() - t0:.1f} s)" + (f": {problem}" if problem else ""),
              flush=True)
    print(f"{len(chosen) - failed} of {len(chosen)} cases hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
