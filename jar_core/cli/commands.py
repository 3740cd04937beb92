"""The commands ``retrieve``, ``index``, ``serve`` and ``bench``: each its parser and its run.

A command's run takes the parsed arguments and ``open_source`` (how the retriever over the
source is made, :func:`~jar_core.cli.arguments.retriever_from_args`) and returns the exit status.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

from jar_core.cli.arguments import (
    JOIN_OPTIONS,
    SEARCH_OPTIONS,
    add_call_arguments,
    add_embedding_options,
    add_option_arguments,
    add_source_arguments,
    embedding_arguments,
    add_strategy_arguments,
    first_stage_argument,
    is_demo,
    load_cached_index,
    searcher_options,
)
from jar_core.cli.printing import PROG, json_safe, print_line, show_warning
from jar_core.errors import InvalidArgumentError

__all__ = ["add_retrieve_parser", "add_index_parser", "add_serve_parser", "add_bench_parser",
           "run_retrieve", "run_index", "run_serve", "run_bench_command"]

OpenSource = Callable[..., Any]

_NO_SAMPLES_HELP = ("keep the columns' sample values (rows of the source) out of the index cache; "
                    "an enumeration's labels, read from the schema, stay")


# -- retrieve -------------------------------------------------------------------------------
def add_retrieve_parser(sub: Any) -> argparse.ArgumentParser:
    r = sub.add_parser("retrieve", help="the tables that answer a question, with their joins")
    r.add_argument("question", nargs="?", help="the question (default with no source: the demo question)")
    add_call_arguments(r, ("k",))
    add_option_arguments(r, ("candidates",))
    first_stage_argument(r)
    add_call_arguments(r, ("include", "exclude", "database"))
    add_strategy_arguments(r)
    add_option_arguments(r, (*JOIN_OPTIONS, *SEARCH_OPTIONS))
    r.add_argument("--explain", action="store_true", help="print a legend of the columns and the step trace")
    r.add_argument("--format", choices=("text", "json", "mermaid", "dot"),
                   help="text (default), json (with the join path), or a picture of the joins: "
                   "mermaid (a Mermaid flowchart) or dot (Graphviz)")
    r.add_argument("--json", action="store_true", help="print the result as JSON (= --format json)")
    r.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    r.add_argument("--no-samples", action="store_true", help=_NO_SAMPLES_HELP)
    add_source_arguments(r)
    return r


def run_retrieve(args: argparse.Namespace, open_source: OpenSource, progress: bool) -> int:
    from jar_core.demo import DEMO_QUESTION
    from jar_core.options import check_k, check_question

    if args.k != "auto":
        check_k(args.k)
    check_k(args.candidates, "--candidates")
    if args.question is not None:
        check_question(args.question)
    question = args.question
    if question is None:
        if not is_demo(args):
            raise InvalidArgumentError("a question is required (jar-retrieval retrieve \"QUESTION\" ...)")
        question = DEMO_QUESTION
    fmt = _output_format(args)
    retriever = open_source(args, progress=progress, **searcher_options(args))
    if not args.index and not args.no_cache:
        load_cached_index(retriever, store_samples=not args.no_samples)
    with warnings.catch_warnings():  # the result carries its warnings: shown once, below
        warnings.simplefilter("ignore", UserWarning)
        res = retriever.retrieve(question, k=args.k, include=args.include or (), exclude=args.exclude or (),
                                 database=args.database)
    if fmt != "text":  # the text shows them; JSON holds them too, but whoever reads stderr sees them
        for w in res.warnings:
            show_warning(w, UserWarning, "", 0)
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
        print(json_safe(json.dumps(payload, indent=2, ensure_ascii=False)))
    elif fmt == "mermaid":
        print_line(res.to_mermaid())
    elif fmt == "dot":
        print_line(res.to_dot())
    else:
        print_line(render.result_text(res, explain=explain, strategy=strategy, candidates=candidates))


# -- index ----------------------------------------------------------------------------------
def add_index_parser(sub: Any) -> argparse.ArgumentParser:
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
    add_source_arguments(i, saved_index=False)
    return i


def run_index(args: argparse.Namespace, open_source: OpenSource, progress: bool) -> int:
    from jar_core.index.schema_index import SchemaIndex, build_index
    from jar_core.index.store import check_index_target, partial_dir

    out = Path(args.out)
    check_index_target(out)  # before the embedding work, not after
    retriever = open_source(args, progress=progress, candidate_generator=args.first_stage)
    old = None
    if args.update:
        if (out / "meta.json").exists():
            old = SchemaIndex.load(out, model_name=retriever.embedder.name)
            _check_same_source(old.schema, retriever.schema, out)
        else:
            print_line(f"no index at {out} to update: building it", file=sys.stderr, one_line=True)
    elif partial_dir(out).is_dir():
        print_line(f"{partial_dir(out)} holds an interrupted build: going on from it if it embedded these texts",
                   file=sys.stderr, one_line=True)
    t0 = time.perf_counter()
    index = build_index(retriever.schema, out, retriever.embedder, old=old, progress=progress,
                        store_samples=not args.no_samples, ann={"auto": None, "exact": False, "ann": True}[args.first_stage])
    _report_build(index.report, updated=old is not None)
    print_line(
        f"{'updated' if old is not None else 'indexed'} {len(retriever.schema)} tables "
        f"({int(index.col_offsets[-1])} columns) with {index.model_name} in {time.perf_counter() - t0:.1f}s -> {out}"
    )
    return 0


def _report_build(report: Any, *, updated: bool) -> None:
    """What an update changed, or what an interrupted build had embedded already."""
    if updated and report is not None:
        for label, ids in (("added", report.added), ("dropped", report.dropped), ("changed", report.changed)):
            print_line(f"{label} {len(ids)} table{'s' if len(ids) != 1 else ''}"
                       + (f": {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}" if ids else ""), one_line=True)
        print_line(f"re-embedded {report.embedded} texts, reused {report.reused}", one_line=True)
    elif report is not None and report.resumed:
        print_line(f"resumed an interrupted build: {report.resumed} of {report.texts} texts were embedded before",
                   one_line=True)


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


# -- serve ----------------------------------------------------------------------------------
def add_serve_parser(sub: Any) -> argparse.ArgumentParser:
    s = sub.add_parser(
        "serve", help="serve retrieval to agents over the Model Context Protocol (stdio)",
        description="An MCP server on stdio with the tools find_tables (question, optional k), "
        "describe_table (name) and list_databases. The model and the index stay loaded between calls. "
        "Needs the mcp package: pip install 'mcp>=1.30' (in a checkout: pip install '.[mcp]').",
    )
    add_call_arguments(s, ("k",), k_help="tables per question when the client gives no k, or 'auto' (default 5)")
    add_option_arguments(s, ("candidates",))
    s.add_argument("--name", default="jar-retrieval", help="the server's name shown to clients")
    first_stage_argument(s)
    add_strategy_arguments(s)
    add_option_arguments(s, (*JOIN_OPTIONS, *SEARCH_OPTIONS))
    s.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    s.add_argument("--no-samples", action="store_true", help=_NO_SAMPLES_HELP)
    add_source_arguments(s)
    s.set_defaults(quiet=True)
    return s


def run_serve(args: argparse.Namespace, open_source: OpenSource) -> int:
    from jar_core.cli.mcp import check_mcp, serve_stdio
    from jar_core.options import check_k, check_k_or_auto

    check_k_or_auto(args.k)
    check_k(args.candidates, "--candidates")
    check_mcp()  # before the model and the index, not after
    t0 = time.perf_counter()
    retriever = open_source(args, **searcher_options(args))
    if not args.index and not args.no_cache:
        load_cached_index(retriever, store_samples=not args.no_samples)
    retriever.index  # noqa: B018 - built (or loaded) now, not on the first call
    retriever.embedder.embed_queries(["load the model now"])
    dbs = retriever.schema.databases
    print_line(
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


# -- bench ----------------------------------------------------------------------------------
def add_bench_parser(sub: Any) -> argparse.ArgumentParser:
    b = sub.add_parser("bench", help="measure selection and retrieval speed on the demo database")
    b.add_argument("--repeat", type=int, default=200, metavar="N", help="repetitions per measurement (default 200)")
    add_embedding_options(b)
    return b


def run_bench_command(args: argparse.Namespace) -> int:
    from jar_core.cli.bench import run_bench

    chosen = embedding_arguments(args)
    if args.repeat < 1:
        raise InvalidArgumentError(f"--repeat must be >= 1, got {args.repeat}")
    run_bench(repeat=args.repeat, **chosen)
    return 0
