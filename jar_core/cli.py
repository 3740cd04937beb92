"""The ``jar-retrieval`` command: ``retrieve``, ``index``, ``bench`` and ``eval``.

Every error the library raises on bad input becomes one line on stderr and exit status 1
(usage errors: status 2).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

from jar_core.errors import InvalidArgumentError, JarError

__all__ = ["main", "build_parser", "add_embedding_options", "embedder_from_args"]

PROG = "jar-retrieval"


# -- sources ------------------------------------------------------------------------
def _add_source(p: argparse.ArgumentParser) -> None:
    src = p.add_argument_group("source (default: the bundled demo database)")
    ex = src.add_mutually_exclusive_group()
    ex.add_argument("--db", metavar="URL", help="SQLAlchemy database URL (sqlite:///file.db, postgresql://...)")
    ex.add_argument("--ddl", metavar="FILE", help="a .sql file of CREATE TABLE statements")
    ex.add_argument("--benchmark", metavar="DIR", help="a benchmark folder (dev.json, dev_tables.json, ...)")
    ex.add_argument("--index", metavar="DIR", help="an index saved by 'jar-retrieval index'")
    src.add_argument("--dialect", help="SQL dialect of --ddl (sqlglot name: mysql, postgres, oracle...)")
    src.add_argument("--db-id", metavar="ID", help="with --benchmark: search one database of it")
    src.add_argument("--sample-rows", type=int, default=1000, metavar="N",
                     help="with --db: rows read per table for statistics (default 1000)")
    add_embedding_options(src)


def add_embedding_options(group: Any) -> None:
    group.add_argument("--model", metavar="NAME", help="sentence-transformers model name or path "
                       "(default: the bundled all-MiniLM-L6-v2)")
    group.add_argument("--backend", choices=("auto", "onnx", "torch"),
                       help="run the bundled model on ONNX Runtime or PyTorch (default: $JAR_RETRIEVAL_BACKEND, "
                       "else auto = ONNX Runtime when installed)")
    group.add_argument("--threads", type=int, metavar="N",
                       help="encoder threads (default: $JAR_RETRIEVAL_THREADS, else 1 per question and all "
                       "cores for large batches)")


def embedder_from_args(args: argparse.Namespace) -> Any:
    """The embedder that ``--model``, ``--backend`` and ``--threads`` ask for."""
    from jar_core.embedding import get_embedder

    if args.threads is not None and args.threads < 1:
        raise InvalidArgumentError(f"--threads must be >= 1, got {args.threads}")
    return get_embedder(args.model, backend=args.backend, threads=args.threads)


def _is_demo(args: argparse.Namespace) -> bool:
    return not (args.db or args.ddl or args.benchmark or args.index)


def _retriever(args: argparse.Namespace, **options: Any) -> Any:
    from jar_core.retriever import TableRetriever

    if args.db_id and not args.benchmark:
        raise InvalidArgumentError("--db-id needs --benchmark")
    if args.dialect and not args.ddl:
        raise InvalidArgumentError("--dialect applies to --ddl only")
    if args.sample_rows < 1:
        raise InvalidArgumentError(f"--sample-rows must be >= 1, got {args.sample_rows}")
    if "embedder" not in options:
        options["embedder"] = embedder_from_args(args)
    if args.index:
        return TableRetriever.from_index(args.index, **options)
    if args.benchmark:
        return TableRetriever.from_benchmark(args.benchmark, db_id=args.db_id, **options)
    if args.ddl:
        return TableRetriever.from_ddl(Path(args.ddl), dialect=args.dialect, **options)
    from jar_core.loaders import load_database

    if args.db:
        url = args.db
    else:
        from jar_core.demo import demo_url

        url = demo_url()
    return TableRetriever(load_database(url, sample_rows=args.sample_rows), **options)


def _cache_path(retriever: Any) -> Path:
    from jar_core.index import cache_path

    return cache_path(retriever.schema, retriever.embedder.name)


# -- output -------------------------------------------------------------------------
def _table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(h) for h in header]] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if n and _numeric(c) else c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _numeric(s: str) -> bool:
    return bool(re.fullmatch(r"-?[\d.]+|-?inf", s))


def _print_result(res: Any, explain: bool) -> None:
    out = [f"Question: {res.question}"]
    subs = ", ".join(res.subqueries) if res.subqueries else "(none)"
    out.append(f"Sub-queries ({res.decomposer}): {subs}")
    out.append(f"Strategy: {res.strategy} over {res.candidates} candidates")
    out.append("")
    rows = [
        (t.step, t.id + (" (pinned)" if t.pinned else "") + ("" if t.joined else "  [no join]"),
         t.score, t.coarse, t.coverage, t.join)
        for t in res.tables
    ]
    out.append(_table(rows, ("step", "table", "score", "coarse", "coverage", "join")))
    out.append("")
    if res.joins:
        out.append("Joins:")
        for j in res.joins:
            out.append(f"  {j.left} = {j.right}  ({j.score:.3f}{', declared' if j.declared else ''})")
    else:
        out.append("Joins: none")
    hint = res.join_clause()
    if hint:
        out.append("")
        out.append("Join path:")
        out.extend("  " + line for line in hint.splitlines())
    if explain and res.trace:
        out.append("")
        out.append("Step trace (best candidates per step; * = chosen):")
        for step, entries in enumerate(res.trace, start=1):
            rows = [
                (step if n == 0 else "", ("* " if e.chosen else "  ") + e.table.id, e.coarse, e.coverage, e.join, e.total)
                for n, e in enumerate(entries)
            ]
            out.append(_table(rows, ("step", "candidate", "coarse", "coverage", "join", "utility")))
    print("\n".join(out))


# -- commands -----------------------------------------------------------------------
def _cmd_retrieve(args: argparse.Namespace) -> int:
    from jar_core.demo import DEMO_QUESTION
    from jar_core.retriever import check_k, check_question

    check_k(args.k)
    check_k(args.candidates, "--candidates")
    if args.question is not None:
        check_question(args.question)
    question = args.question
    if question is None:
        if not _is_demo(args):
            raise InvalidArgumentError("a question is required (jar-retrieval retrieve \"QUESTION\" ...)")
        question = DEMO_QUESTION
    options: dict[str, Any] = {"candidates": args.candidates, "progress": _progress_enabled(args)}
    if args.strategy:
        options["strategy"] = _strategy(args)
    retriever = _retriever(args, **options)
    if not args.index and not args.no_cache:
        retriever.load_or_build_index(_cache_path(retriever))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = retriever.retrieve(question, k=args.k, include=args.include or (), exclude=args.exclude or ())
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    if args.json:
        payload = res.to_dict()
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _print_result(res, args.explain)
    return 0


def _strategy(args: argparse.Namespace) -> Any:
    from jar_core.strategies import get_strategy

    if args.strategy == "greedy" and args.weights:
        return get_strategy("greedy", **dict(zip(("l_cov", "l_join", "l_coarse"), _weights(args.weights))))
    return get_strategy(args.strategy)


def _weights(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        raise InvalidArgumentError(f"--weights takes l_cov,l_join,l_coarse (three numbers), got {text!r}")
    return parts  # type: ignore[return-value]


def _cmd_index(args: argparse.Namespace) -> int:
    if args.index:
        raise InvalidArgumentError("'index' builds an index from --db, --ddl or --benchmark; --index is its input form")
    retriever = _retriever(args, progress=_progress_enabled(args))
    t0 = time.perf_counter()
    path = retriever.save_index(args.out)
    print(
        f"indexed {len(retriever.schema)} tables ({int(retriever.index.col_offsets[-1])} columns) with "
        f"{retriever.index.model_name} in {time.perf_counter() - t0:.1f}s -> {path}"
    )
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from jar_core.bench import run_bench

    if args.threads is not None and args.threads < 1:
        raise InvalidArgumentError(f"--threads must be >= 1, got {args.threads}")
    run_bench(repeat=args.repeat, model=args.model, backend=args.backend, threads=args.threads)
    return 0


def _progress_enabled(args: argparse.Namespace) -> bool:
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Join-aware multi-table retrieval.")
    from jar_core import __version__

    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--verbose", "-v", action="store_true", help="log what happens")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("retrieve", help="the tables that answer a question, with their joins")
    r.add_argument("question", nargs="?", help="the question (default with no source: the demo question)")
    r.add_argument("-k", type=int, default=5, help="number of tables (default 5)")
    r.add_argument("--candidates", type=int, default=20, metavar="N", help="candidate set size (default 20)")
    r.add_argument("--include", action="append", metavar="TABLE", help="pin a table (repeatable)")
    r.add_argument("--exclude", action="append", metavar="TABLE", help="never return a table (repeatable)")
    r.add_argument("--strategy", choices=("greedy", "dense", "mip", "crush"), help="search strategy (default greedy)")
    r.add_argument("--weights", metavar="COV,JOIN,COARSE", help="greedy weights (default 2,1,4)")
    r.add_argument("--explain", action="store_true", help="print the step trace")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    _add_source(r)
    r.set_defaults(func=_cmd_retrieve)

    i = sub.add_parser("index", help="build and save an index for a source")
    i.add_argument("--out", "-o", required=True, metavar="DIR", help="directory to write (replaced atomically)")
    i.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    _add_source(i)
    i.set_defaults(func=_cmd_index)

    b = sub.add_parser("bench", help="measure selection and retrieval speed on the demo database")
    b.add_argument("--repeat", type=int, default=200, help="repetitions per measurement")
    add_embedding_options(b)
    b.set_defaults(func=_cmd_bench)

    try:
        from jar_core.eval.command import add_eval_parser
    except ImportError:  # pragma: no cover - the eval command ships with the package
        pass
    else:
        add_eval_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format=f"{PROG}: %(message)s")
    # The encoder's threads are the library's choice (jar_core.embedding: one per question, all
    # cores for large batches; --threads or $JAR_RETRIEVAL_THREADS override it).
    if not args.verbose:
        for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        return int(args.func(args) or 0)
    except JarError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
