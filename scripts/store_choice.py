#!/usr/bin/env python3
"""Which embedded store serves an index's tables (docs/lakes.md, "The index on disk"): write N
table rows (those of a saved index's ``schema.sqlite``, repeated), then, run again on the file
written, open it and read 300 tables at random positions, with the process's peak memory.
Stores: SQLite (standard library), DuckDB (``jar-retrieval[duckdb]``), one JSON file parsed whole
(the format before). Run each store twice: the first run writes, the second reads.

    python scripts/store_choice.py sqlite|duckdb|json INDEX/schema.sqlite 100000 /tmp/store.sqlite
"""
import json
import os
import random
import sqlite3
import sys
import time

def rows(n):
    src = sqlite3.connect(sys.argv[2])
    base = [bytes(d) for (d,) in src.execute("SELECT data FROM tables ORDER BY pos")]
    return [base[i % len(base)] for i in range(n)]

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"): return int(line.split()[1]) / 1024

def run(kind, path, n):
    data = rows(n) if not os.path.exists(path) else None
    t0 = time.perf_counter()
    if data is not None:
        if kind == "sqlite":
            con = sqlite3.connect(path); con.execute("CREATE TABLE t (pos INTEGER PRIMARY KEY, data BLOB)")
            con.executemany("INSERT INTO t VALUES (?, ?)", enumerate(data)); con.commit(); con.close()
        elif kind == "duckdb":
            import duckdb
            con = duckdb.connect(path); con.execute("CREATE TABLE t (pos INTEGER PRIMARY KEY, data VARCHAR)")
            con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(data))) if n <= 20000 else None
            if n > 20000:
                tmp = path + ".json"
                with open(tmp, "w") as f:
                    for i, d in enumerate(data): f.write(json.dumps({"pos": i, "data": d.decode()}) + "\n")
                con.execute(f"INSERT INTO t SELECT pos, data FROM read_json('{tmp}', columns={{'pos': 'INTEGER', 'data': 'VARCHAR'}})")
                os.unlink(tmp)
            con.close()
        elif kind == "json":
            with open(path, "w") as f: json.dump([json.loads(d) for d in data], f)
        return {"write_s": round(time.perf_counter() - t0, 2), "MB": round(os.path.getsize(path) / 2**20, 1)}
    random.seed(0); want = [random.randrange(n) for _ in range(300)]
    if kind == "sqlite":
        con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True); opened = time.perf_counter() - t0
        t1 = time.perf_counter(); _ = [json.loads(con.execute("SELECT data FROM t WHERE pos = ?", (i,)).fetchone()[0]) for i in want]
    elif kind == "duckdb":
        import duckdb
        con = duckdb.connect(path, read_only=True); opened = time.perf_counter() - t0
        t1 = time.perf_counter(); _ = [json.loads(con.execute("SELECT data FROM t WHERE pos = ?", [i]).fetchone()[0]) for i in want]
    else:
        whole = json.load(open(path)); opened = time.perf_counter() - t0
        t1 = time.perf_counter(); _ = [whole[i] for i in want]
    return {"open_s": round(opened, 3), "read_300_ms": round(1000 * (time.perf_counter() - t1), 1), "peak_MB": round(peak())}

if __name__ == "__main__":
    kind, n, path = sys.argv[1], int(sys.argv[3]), sys.argv[4]
    print(kind, n, json.dumps(run(kind, path, n)))
