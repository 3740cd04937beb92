"""The ``jar-retrieval`` command: ``retrieve``, ``index``, ``serve`` (MCP), ``bench`` and ``eval``.

Every error the library raises on bad input becomes one line on stderr and exit status 1
(usage errors: status 2); warnings are one line each. Names and questions are printed with
control characters (terminal escape sequences) and unpaired surrogates escaped.
"""
from __future__ import annotations

import argparse
import importlib.abc
import json
import logging
import os
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

from jar_core.errors import InvalidArgumentError, JarError
from jar_core.schema import MAX_SAMPLE_VALUES
from jar_core.strategies import STRATEGIES, WEIGHTED_STRATEGIES, JoinAwareStrategy

__all__ = ["main", "build_parser", "add_embedding_options", "embedder_from_args", "parse_weights"]

PROG = "jar-retrieval"


# -- sources ------------------------------------------------------------------------
def _add_source(p: argparse.ArgumentParser, *, saved_index: bool = True) -> None:
    """The source options; ``saved_index``: an index saved by ``index`` is one (not for ``index`` itself)."""
    src = p.add_argument_group("source (default: the bundled demo database)")
    ex = src.add_mutually_exclusive_group()
    ex.add_argument("--db", metavar="URL", help="SQLAlchemy database URL (sqlite:///file.db, postgresql://...)")
    ex.add_argument("--ddl", metavar="FILE", help="a .sql file of CREATE TABLE statements ('-': standard input)")
    ex.add_argument("--benchmark", metavar="DIR", help="a benchmark folder (dev.json, dev_tables.json, ...)")
    if saved_index:
        ex.add_argument("--index", metavar="DIR", help="an index saved by 'jar-retrieval index'")
    else:
        p.set_defaults(index=None)
    src.add_argument("--dialect", help="SQL dialect of --ddl (sqlglot name: mysql, postgres, oracle...)")
    src.add_argument("--db-id", metavar="ID", help="with --benchmark: search one database of it")
    src.add_argument("--schema", action="append", metavar="NAME",
                     help="with --db: the SQL schema to read (PostgreSQL schema, MySQL database...; repeatable; "
                     "default: the connection's default schema). Its tables are named NAME.table and the SQL "
                     "printed is qualified with it")
    src.add_argument("--sample-rows", type=int, default=None, metavar="N",
                     help="with --db (or the demo database): rows read per table for statistics (default 1000)")
    src.add_argument("--sample-values", type=int, default=None, metavar="N",
                     help="with --db (or the demo database): distinct values kept per column, where the "
                     "question's names are looked up (default 100, at most 1000)")
    src.add_argument("--partitions", action="store_true",
                     help="with --db or --ddl: also read PostgreSQL partitions and the INHERITS children that add "
                     "no column (by default left out when their parent is read: querying it reads their rows)")
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
    from jar_core.embed.embedders import get_embedder

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
    if args.schema and not args.db:
        raise InvalidArgumentError("--schema applies to --db (the SQL schema of a live database)")
    other = "--index" if args.index else "--ddl" if args.ddl else "--benchmark" if args.benchmark else None
    for flag, value, what in (("--sample-rows", args.sample_rows, "rows read"),
                              ("--sample-values", args.sample_values, "values kept")):
        if value is not None and other:
            raise InvalidArgumentError(f"{flag} applies to --db ({what} from a live database), not to {other}")
    if getattr(args, "no_samples", False) and args.index:
        raise InvalidArgumentError("--no-samples applies to building an index from a source; an --index keeps "
                                   "what it was built with (build it again with 'index --no-samples')")
    if args.partitions and other in ("--index", "--benchmark"):
        raise InvalidArgumentError(f"--partitions applies to --db or --ddl, not to {other}")
    if args.sample_rows is not None and args.sample_rows < 1:
        raise InvalidArgumentError(f"--sample-rows must be >= 1, got {args.sample_rows}")
    if args.sample_values is not None and not 0 <= args.sample_values <= MAX_SAMPLE_VALUES:
        raise InvalidArgumentError(f"--sample-values must be from 0 to {MAX_SAMPLE_VALUES}, got {args.sample_values}")
    if "embedder" not in options:
        options["embedder"] = embedder_from_args(args)
    if args.index:
        return TableRetriever.from_index(args.index, **options)
    if args.benchmark:
        return TableRetriever.from_benchmark(args.benchmark, db_id=args.db_id, **options)
    if args.ddl:
        ddl: str | Path = sys.stdin.read() if args.ddl == "-" else Path(args.ddl)
        return TableRetriever.from_ddl(ddl, dialect=args.dialect, partitions=args.partitions, **options)
    from jar_core.loaders import load_database

    if args.db:
        url = args.db
    else:
        from jar_core.demo import demo_url

        url = demo_url()
    sampling = {k: v for k, v in (("sample_rows", args.sample_rows), ("sample_values", args.sample_values)) if v is not None}
    return TableRetriever(load_database(url, schema=args.schema or None, partitions=args.partitions, **sampling), **options)


def _cache_path(retriever: Any) -> Path:
    from jar_core.index.store import cache_path

    return cache_path(retriever.schema, retriever.embedder.name)


# -- output -------------------------------------------------------------------------
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_UNSAFE_ONE_LINE = re.compile(_UNSAFE.pattern[:-1] + r"\n\t]")


def _safe(text: Any, *, one_line: bool = False) -> str:
    """``text`` with control characters, escape sequences and unpaired surrogates escaped (``\\x1b``)."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), str(text))


def _json_safe(text: str) -> str:
    """JSON text with the characters :func:`_safe` escapes written as ``\\uXXXX`` (still valid JSON)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _print(text: str, *, file: Any = None, one_line: bool = False) -> None:
    print(_safe(text, one_line=one_line), file=file or sys.stdout)


def _k_value(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k takes a positive integer or 'auto', got {text!r}") from None


# -- join options (retrieve and eval) ---------------------------------------------------
def _join_arguments(p: argparse.ArgumentParser) -> None:
    from jar_core.options import DEFAULT_MIN_JOIN_SCORE

    p.add_argument("--joins", choices=("rules", "paper"), default="rules",
                   help="how joins are found: declared keys, naming rules and value inclusion (rules, default) "
                   "or the paper's pair score (paper)")
    p.add_argument("--min-join-score", type=float, default=DEFAULT_MIN_JOIN_SCORE, metavar="X",
                   help=f"drop joins with a lower confidence (0..1, default {DEFAULT_MIN_JOIN_SCORE})")
    p.add_argument("--cross-database-joins", action="store_true",
                   help="also infer joins between tables of different databases")


def hubness_argument(p: argparse.ArgumentParser) -> None:
    """``--hubness W``: the weight of the hub-table correction (:mod:`jar_core.signals.hubness`)."""
    from jar_core.signals.hubness import DEFAULT_HUBNESS

    p.add_argument("--hubness", type=float, default=DEFAULT_HUBNESS, metavar="W",
                   help=f"weight of the hub-table correction of fine relevance (0..2, default {DEFAULT_HUBNESS}; "
                   "0 is the paper's fine relevance)")


def _search_arguments(p: argparse.ArgumentParser) -> None:
    """The switchable parts of the default search (docs/method.md, "Beyond the paper")."""
    from jar_core.candidates.lexical import DEFAULT_LEXICAL_RELEVANCE
    from jar_core.options import DEFAULT_EXPAND, DEFAULT_LEXICAL

    p.add_argument("--expand", type=int, default=DEFAULT_EXPAND, metavar="N",
                   help=f"add up to N tables joinable to the most relevant candidates (bridge tables; "
                   f"default {DEFAULT_EXPAND}, 0 off)")
    p.add_argument("--no-values", action="store_true",
                   help="do not match the question's words against the columns' sample values")
    p.add_argument("--lexical", type=float, default=DEFAULT_LEXICAL, metavar="W",
                   help=f"weight of BM25 fused with dense similarity to rank candidates (0..1, default "
                   f"{DEFAULT_LEXICAL}; 0 is dense only)")
    p.add_argument("--lexical-relevance", type=float, default=DEFAULT_LEXICAL_RELEVANCE, metavar="W",
                   help=f"weight of BM25 in the search's coarse relevance (0..1, default {DEFAULT_LEXICAL_RELEVANCE})")
    hubness_argument(p)


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`TableRetriever` options of :func:`_search_arguments` (checked by the retriever)."""
    return {"expand": args.expand, "match_values": not args.no_values, "lexical": args.lexical,
            "lexical_relevance": args.lexical_relevance, "hubness": args.hubness}


def first_stage_argument(p: argparse.ArgumentParser) -> None:
    """``--first-stage``: how the candidate set is found (:mod:`jar_core.candidates.ann`)."""
    p.add_argument("--first-stage", choices=("auto", "exact", "ann"), default="auto",
                   help="how the candidates are found: brute force (exact), an approximate vector index "
                   "(ann, needs faiss-cpu), or brute force below 20,000 tables and ann from there (auto, default)")


def join_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`TableRetriever` join options of ``--joins`` / ``--min-join-score`` / ``--cross-database-joins``."""
    x = args.min_join_score
    if not (0.0 <= x <= 1.0):
        raise InvalidArgumentError(f"--min-join-score must be between 0 and 1, got {x}")
    return {"joins": args.joins, "min_join_score": x, "cross_database_joins": args.cross_database_joins}


# -- commands -----------------------------------------------------------------------
def _cmd_retrieve(args: argparse.Namespace) -> int:
    from jar_core.demo import DEMO_QUESTION
    from jar_core.options import check_k, check_question

    if args.k != "auto":
        check_k(args.k)
    check_k(args.candidates, "--candidates")
    if args.question is not None:
        check_question(args.question)
    question = args.question
    if question is None:
        if not _is_demo(args):
            raise InvalidArgumentError("a question is required (jar-retrieval retrieve \"QUESTION\" ...)")
        question = DEMO_QUESTION
    fmt = _output_format(args)
    retriever = _retriever(args, progress=_progress_enabled(args), **_searcher_options(args))
    if not args.index and not args.no_cache:
        retriever.load_or_build_index(_cache_path(retriever), store_samples=not args.no_samples)
    with warnings.catch_warnings():  # the result carries its warnings: shown once, below
        warnings.simplefilter("ignore", UserWarning)
        res = retriever.retrieve(question, k=args.k, include=args.include or (), exclude=args.exclude or (),
                                 database=args.database)
    if fmt != "text":  # the text shows them; JSON holds them too, but whoever reads stderr sees them
        for w in res.warnings:
            _show_warning(w, UserWarning, "", 0)
    _print_retrieval(res, fmt, explain=args.explain, strategy=retriever.strategy, candidates=args.candidates)
    return 0


def _output_format(args: argparse.Namespace) -> str:
    """The ``--format`` of ``retrieve`` (``--json`` is ``--format json``), checked against ``--explain``."""
    fmt = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise InvalidArgumentError(f"--json and --format {fmt} disagree; pass one")
    if args.explain and fmt not in ("text", "json"):
        raise InvalidArgumentError(f"--explain applies to --format text and json, not {fmt}")
    return fmt


def _print_retrieval(res: Any, fmt: str, *, explain: bool, strategy: Any, candidates: int) -> None:
    from jar_core.output import render
    if fmt == "json":
        payload = render.result_json(res)
        if explain:
            payload["trace"] = [
                [{"table": e.table.id, "coarse": round(e.coarse, 6), "coverage": round(e.coverage, 6),
                  "join": round(e.join, 6), "utility": round(e.total, 6), "chosen": e.chosen} for e in step]
                for step in res.trace
            ]
            payload["legend"] = render.explain_legend(strategy)
        print(_json_safe(json.dumps(payload, indent=2, ensure_ascii=False)))
    elif fmt == "mermaid":
        _print(res.to_mermaid())
    elif fmt == "dot":
        _print(res.to_dot())
    else:
        _print(render.result_text(res, explain=explain, strategy=strategy, candidates=candidates))


def _strategy_arguments(p: argparse.ArgumentParser) -> None:
    """``--strategy`` and ``--weights`` (``retrieve`` and ``serve``)."""
    p.add_argument("--strategy", choices=STRATEGIES,
                   help="search strategy (default join-aware; greedy is the paper's)")
    p.add_argument("--weights", metavar="COV,JOIN,COARSE",
                   help="weights of the join-aware or greedy search (defaults 3,1,4 and 2,1,4)")


def _searcher_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`TableRetriever` options of ``retrieve`` and ``serve``: candidates, first stage,
    strategy, join and search switches."""
    options: dict[str, Any] = {"candidates": args.candidates, **join_options(args), **search_options(args),
                               "candidate_generator": args.first_stage}
    strategy = _strategy(args)
    if strategy is not None:
        options["strategy"] = strategy
    return options


def _strategy(args: argparse.Namespace) -> Any:
    """The strategy of ``--strategy`` / ``--weights`` (``None``: the retriever's default, join-aware)."""
    from jar_core import strategies

    if args.weights is not None:
        weights = parse_weights(args.weights)
        name = args.strategy or _DEFAULT_STRATEGY
        if name not in WEIGHTED_STRATEGIES:
            raise InvalidArgumentError(
                f"--weights sets the weights of the greedy searches ({', '.join(WEIGHTED_STRATEGIES)}); "
                f"it does not apply to --strategy {name}"
            )
        return strategies.get_strategy(name, **dict(zip(("l_cov", "l_join", "l_coarse"), weights)))
    return strategies.get_strategy(args.strategy) if args.strategy else None


#: The strategy a retriever uses when none is given.
_DEFAULT_STRATEGY = JoinAwareStrategy.name


def parse_weights(text: str, flag: str = "--weights") -> tuple[float, float, float]:
    """``l_cov,l_join,l_coarse`` as three floats, checked by the search's own
    :func:`~jar_core.strategies.greedy.check_weights` (each in ``[0, MAX_WEIGHT]``, not all 0)."""
    from jar_core.strategies.greedy import check_weights

    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        raise InvalidArgumentError(f"{flag} takes l_cov,l_join,l_coarse (three numbers, e.g. 2,1,4), got {text!r}")
    try:
        return check_weights(tuple(zip(("l_cov", "l_join", "l_coarse"), parts)))  # type: ignore[return-value]
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"{flag}: {e}") from None


def _cmd_index(args: argparse.Namespace) -> int:
    from jar_core.index.schema_index import SchemaIndex, build_index
    from jar_core.index.store import check_index_target, partial_dir

    out = Path(args.out)
    check_index_target(out)  # before the embedding work, not after
    retriever = _retriever(args, progress=_progress_enabled(args), candidate_generator=args.first_stage)
    old = None
    if args.update:
        if (out / "meta.json").exists():
            old = SchemaIndex.load(out, model_name=retriever.embedder.name)
            _check_same_source(old.schema, retriever.schema, out)
        else:
            _print(f"no index at {out} to update: building it", file=sys.stderr, one_line=True)
    elif partial_dir(out).is_dir():
        _print(f"{partial_dir(out)} holds an interrupted build: going on from it if it embedded these texts",
               file=sys.stderr, one_line=True)
    t0 = time.perf_counter()
    index = build_index(retriever.schema, out, retriever.embedder, old=old, progress=_progress_enabled(args),
                        store_samples=not args.no_samples, ann={"auto": None, "exact": False, "ann": True}[args.first_stage])
    report = index.report
    if old is not None and report is not None:
        for label, ids in (("added", report.added), ("dropped", report.dropped), ("changed", report.changed)):
            _print(f"{label} {len(ids)} table{'s' if len(ids) != 1 else ''}"
                   + (f": {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}" if ids else ""), one_line=True)
        _print(f"re-embedded {report.embedded} texts, reused {report.reused}", one_line=True)
    elif report is not None and report.resumed:
        _print(f"resumed an interrupted build: {report.resumed} of {report.texts} texts were embedded before", one_line=True)
    _print(
        f"{'updated' if old is not None else 'indexed'} {len(retriever.schema)} tables "
        f"({int(index.col_offsets[-1])} columns) with {index.model_name} in {time.perf_counter() - t0:.1f}s -> {out}"
    )
    return 0


def _check_same_source(saved: Any, source: Any, out: Path) -> None:
    """Refuse ``index --update`` when the index at ``out`` shares no table with the source: the
    update would drop every saved table, which is a rebuild for another source, most likely by a
    wrong ``--db`` / ``--ddl``; the saved index is left as it is."""
    saved_ids = {t.id for t in saved.tables}
    if not saved_ids or saved_ids & {t.id for t in source.tables}:
        return

    def where(schema: Any) -> str:
        dbs = sorted({t.database for t in schema.tables})
        n = len(schema.tables)
        return f"{n} table{'s' if n != 1 else ''} of {', '.join(dbs[:3])}{' ...' if len(dbs) > 3 else ''}"

    raise InvalidArgumentError(
        f"--update: the index at {out} holds none of the source's tables (it has {where(saved)}, the source "
        f"{where(source)}); is this the source it was built from? The index is left as it is; leave out "
        "--update to build it anew for this source"
    )


def _cmd_serve(args: argparse.Namespace) -> int:
    from jar_core.cli.mcp import check_mcp, serve_stdio
    from jar_core.options import check_k, check_k_or_auto

    check_k_or_auto(args.k)
    check_k(args.candidates, "--candidates")
    check_mcp()  # before the model and the index, not after
    t0 = time.perf_counter()
    retriever = _retriever(args, **_searcher_options(args))
    if not args.index and not args.no_cache:
        retriever.load_or_build_index(_cache_path(retriever), store_samples=not args.no_samples)
    retriever.index  # noqa: B018 - built (or loaded) now, not on the first call
    retriever.embedder.embed_queries(["load the model now"])
    dbs = retriever.schema.databases
    _print(
        f"{PROG} serve: {len(retriever.schema)} tables ({', '.join(dbs[:5])}{' ...' if len(dbs) > 5 else ''}); "
        f"model {retriever.index.model_name} loaded and index ready in {time.perf_counter() - t0:.1f}s; "
        "serving MCP on stdio",
        file=sys.stderr, one_line=True,
    )
    serve_stdio(retriever, k=args.k, source=_source_label(args), name=args.name)
    return 0


def _source_label(args: argparse.Namespace) -> str:
    from jar_core.loaders.database import redact_url

    if args.db:
        return redact_url(args.db)
    if args.ddl:
        return "DDL from standard input" if args.ddl == "-" else f"DDL file {args.ddl}"
    if args.index:
        return f"index {args.index}"
    if args.benchmark:
        return f"benchmark {args.benchmark}" + (f" (database {args.db_id})" if args.db_id else "")
    return "the bundled demo database"


def _cmd_bench(args: argparse.Namespace) -> int:
    from jar_core.cli.bench import run_bench

    if args.threads is not None and args.threads < 1:
        raise InvalidArgumentError(f"--threads must be >= 1, got {args.threads}")
    if args.repeat < 1:
        raise InvalidArgumentError(f"--repeat must be >= 1, got {args.repeat}")
    run_bench(repeat=args.repeat, model=args.model, backend=args.backend, threads=args.threads)
    return 0


def _progress_enabled(args: argparse.Namespace) -> bool:
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


#: A value that argparse would take for an option because it begins with '-': '-1,1,1', '-.5'.
_NEGATIVE_VALUE = re.compile(r"-\.?\d")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line naming what is wrong and where help is
    (``jar-retrieval retrieve: error: argument -k: ... (see jar-retrieval retrieve --help)``), exit 2.

    A value beginning with '-' and a digit is the value of the long option before it
    (``--weights -1,1,1`` is ``--weights=-1,1,1``), so that it is checked like any other value
    (argparse itself takes only a lone negative number such as ``-1`` for a value)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        return super().parse_known_args(self._join_negative_values(args), namespace)

    def _join_negative_values(self, args: Sequence[str] | None) -> list[str]:
        args = list(sys.argv[1:] if args is None else args)
        takes_value = {o for a in self._actions if a.nargs is None for o in a.option_strings if o.startswith("--")}
        out: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--":  # the rest are positional
                return out + args[i:]
            if arg in takes_value and i + 1 < len(args) and _NEGATIVE_VALUE.match(args[i + 1]):
                out.append(f"{arg}={args[i + 1]}")
                i += 2
            else:
                out.append(arg)
                i += 1
        return out


class _CommandParser(_Parser):
    """The parser of a command: an argument it does not know is its usage error, which names the
    command's help (``see jar-retrieval retrieve --help``), not the top-level one."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Join-aware multi-table retrieval.")
    _add_global_options(p, command=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    sub.required = True

    r = sub.add_parser("retrieve", help="the tables that answer a question, with their joins")
    r.add_argument("question", nargs="?", help="the question (default with no source: the demo question)")
    r.add_argument("-k", type=_k_value, default=5,
                   help="number of tables, or 'auto' (as few as cover the question and join up, at most 10; default 5)")
    r.add_argument("--candidates", type=int, default=20, metavar="N",
                   help="candidate set: the N tables most similar to the question, which the search re-ranks "
                   "(default 20; every table when the source has fewer)")
    first_stage_argument(r)
    r.add_argument("--include", action="append", metavar="TABLE", help="pin a table (repeatable)")
    r.add_argument("--exclude", action="append", metavar="TABLE", help="never return a table (repeatable)")
    r.add_argument("--database", metavar="DB", help="search the tables of this database only (a lake of many)")
    _strategy_arguments(r)
    _join_arguments(r)
    _search_arguments(r)
    r.add_argument("--explain", action="store_true", help="print a legend of the columns and the step trace")
    r.add_argument("--format", choices=("text", "json", "mermaid", "dot"),
                   help="text (default), json (with the join path), or a picture of the joins: "
                   "mermaid (a Mermaid flowchart) or dot (Graphviz)")
    r.add_argument("--json", action="store_true", help="print the result as JSON (= --format json)")
    r.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    r.add_argument("--no-samples", action="store_true",
                   help="keep the columns' sample values (rows of the source) out of the index cache; "
                   "an enumeration's labels, read from the schema, stay")
    _add_source(r)
    r.set_defaults(func=_cmd_retrieve)

    i = sub.add_parser("index", help="build and save an index for a source")
    i.add_argument("--out", "-o", required=True, metavar="DIR",
                   help="directory to write (replaced atomically). An interrupted build resumes from the texts "
                   "it embedded (kept in .DIR.partial beside it) when run again with the same source and model")
    i.add_argument("--update", action="store_true",
                   help="update the index at --out to the source: tables added, dropped or changed; only texts "
                   "the index lacks are embedded")
    first_stage_argument(i)
    i.add_argument("--no-samples", action="store_true",
                   help="keep the columns' sample values (rows of the source) out of the index; "
                   "an enumeration's labels, read from the schema, stay")
    _add_source(i, saved_index=False)
    i.set_defaults(func=_cmd_index)

    s = sub.add_parser(
        "serve", help="serve retrieval to agents over the Model Context Protocol (stdio)",
        description="An MCP server on stdio with the tools find_tables (question, optional k), "
        "describe_table (name) and list_databases. The model and the index stay loaded between calls. "
        "Needs the mcp package: pip install 'jar-retrieval[mcp]'.",
    )
    s.add_argument("-k", type=_k_value, default=5,
                   help="tables per question when the client gives no k, or 'auto' (default 5)")
    s.add_argument("--candidates", type=int, default=20, metavar="N", help="candidate set size (default 20)")
    s.add_argument("--name", default="jar-retrieval", help="the server's name shown to clients")
    first_stage_argument(s)
    _strategy_arguments(s)
    _join_arguments(s)
    _search_arguments(s)
    s.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    s.add_argument("--no-samples", action="store_true",
                   help="keep the columns' sample values (rows of the source) out of the index cache; "
                   "an enumeration's labels, read from the schema, stay")
    _add_source(s)
    s.set_defaults(func=_cmd_serve, quiet=True)

    b = sub.add_parser("bench", help="measure selection and retrieval speed on the demo database")
    b.add_argument("--repeat", type=int, default=200, metavar="N", help="repetitions per measurement (default 200)")
    add_embedding_options(b)
    b.set_defaults(func=_cmd_bench)

    try:
        from jar_core.cli.eval import add_eval_parser
    except ImportError:  # pragma: no cover - the eval command ships with the package
        pass
    else:
        add_eval_parser(sub)
    for command in sub.choices.values():
        _add_global_options(command, command=True)
    return p


def _add_global_options(p: argparse.ArgumentParser, *, command: bool) -> None:
    """The top-level options, which every command takes too, at the end of its help:
    ``jar-retrieval retrieve -v`` is ``jar-retrieval -v retrieve``. A command's ``--verbose`` and
    ``--quiet`` have no default (SUPPRESS): argparse copies every value of the command's namespace
    over the top level's, and a default would undo a ``-v`` given before the command. Given on both
    sides, an option is on.

    ``--quiet`` and ``--verbose`` go together: one is about progress bars, the other about log
    lines (``-q -v``: the log lines without the bars). The commands without progress bars
    (``serve``, ``bench``) take ``--quiet`` and have nothing to leave out."""
    from jar_core import __version__

    group = p.add_argument_group("global options (also before the command)") if command else p
    group.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    group.add_argument("--verbose", "-v", action="store_true", default=argparse.SUPPRESS if command else False,
                       help="log what happens")
    group.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS if command else False,
                       help="no progress bars (shown on a terminal only), model downloads' included; "
                       "with --verbose: the log lines without the bars")


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    _print(f"{PROG}: warning: {message}", file=sys.stderr, one_line=True)


def _setup_logging(verbose: bool, quiet: bool = False) -> None:
    """Log lines as ``jar-retrieval: message`` on stderr through the root logger's one handler
    (INFO with ``--verbose``, else WARNING and the model libraries' loggers ERROR). Without
    ``--verbose``, or with ``--quiet``, huggingface_hub shows no download progress bars.

    huggingface_hub gives its logger a stream handler of its own when imported, and that logger
    also propagates to the root: every line of it would be printed twice. The handler is removed
    here, the lines go to the root's.

    transformers (and sentence-transformers through it) gives its logger a handler of its own too,
    with lines as ``[transformers] message``, and keeps them from the root unless ``$CI`` is set:
    then both print them, each line twice. That handler is removed and the logger propagates (with
    or without ``--verbose``) as soon as transformers is imported: importing it here would add a
    second to every run that never loads it (the ONNX backend). Its lines are then
    ``jar-retrieval: message`` once, whatever ``$CI``; without ``--verbose`` errors only."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format=f"{PROG}: %(message)s")
    if not verbose:  # before huggingface_hub is imported: it reads them then
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if not verbose or quiet:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import huggingface_hub.utils.logging  # noqa: F401 - adds the handler (once, on import)
    except ImportError:  # pragma: no cover - a dependency of sentence-transformers
        pass
    hub = logging.getLogger("huggingface_hub")
    for handler in list(hub.handlers):
        hub.removeHandler(handler)
    hub.propagate = True
    _after_import("transformers.utils.logging", _transformers_to_root)
    if not verbose:
        for noisy in ("sentence_transformers", "transformers", "huggingface_hub"):
            logging.getLogger(noisy).setLevel(logging.ERROR)


def _transformers_to_root(tlog: Any) -> None:
    """transformers' log lines through the root's handler only (``tlog``: ``transformers.utils.logging``)."""
    tlog.disable_default_handler()
    tlog.enable_propagation()


def _after_import(name: str, then: Callable[[Any], None]) -> None:
    """``then(module)`` now if the module ``name`` is imported, else right after its import.
    An error of ``then`` is logged and leaves the module as it is."""
    def run(module: Any) -> None:
        try:
            then(module)
        except Exception as e:  # noqa: BLE001 - another version of the library: its own format, then
            logging.getLogger(__name__).info("could not set up the log lines of %s: %s", name, e)

    module = sys.modules.get(name)
    if module is not None:
        run(module)
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, run))


class _AfterImport(importlib.abc.MetaPathFinder):
    """A finder that, asked for the module ``name``, steps aside (once) and wraps the
    ``exec_module`` of the loader the other finders give, so that ``then(module)`` runs once the
    module is executed."""

    def __init__(self, name: str, then: Callable[[Any], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name or self not in sys.meta_path:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then(module: Any) -> None:
            exec_module(module)
            self.then(module)

        try:
            loader.exec_module = exec_then  # this loader instance loads this one module
        except AttributeError:  # pragma: no cover - a loader that takes no attribute: left as it is
            pass
        return spec


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose, args.quiet)
    # The encoder's threads are the library's choice (jar_core.embed.embedders: one per question, all
    # cores for large batches; --threads or $JAR_RETRIEVAL_THREADS override it).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except JarError as e:
        _print(f"{PROG}: error: {e}", file=sys.stderr, one_line=True)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
