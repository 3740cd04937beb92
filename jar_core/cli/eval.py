"""``jar-retrieval eval DIR``: every method on the same candidates and signals of a benchmark folder.

See docs/evaluation.md for the options, the JSON shape and how gold tables are read.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from jar_core.cli.arguments import (
    JOIN_OPTIONS,
    add_embedding_options,
    add_option_arguments,
    embedder_from_args,
    first_stage_argument,
    hubness_argument,
    join_options,
    option_values,
    parse_weights,
    progress_enabled,
)
from jar_core.cli.printing import json_safe, print_line, show_warning
from jar_core.errors import BenchmarkFormatError, InvalidArgumentError

__all__ = ["add_eval_parser", "run_eval"]

DEFAULT_METHODS = "default,dense,greedy,mip,crush"
DEFAULT_KS = "2,3,5,10"
#: The paper's candidates for the paper's methods (no expansion, value matches or BM25); the method
#: "default" adds them itself (:func:`jar_core.eval.harness.prepare`).
PAPER_CANDIDATES = {"expand": 0, "match_values": False, "lexical": 0.0, "kind_values": 0.0}


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    e = subparsers.add_parser(
        "eval",
        help="evaluate retrieval methods on a benchmark folder (recall, complete recall, time)",
        description="Run the default configuration, dense, greedy, mip and crush on the same top-N candidates and signals of a "
        "benchmark folder (dev.json + dev_tables.json, optional decomp.json, ...) and report recall "
        "and complete recall at each K over the multi-table questions.",
    )
    e.add_argument("folder", metavar="DIR", help="benchmark folder (layout of shared/benchmarks/README.md)")
    e.add_argument("--methods", default=DEFAULT_METHODS, metavar="LIST",
                   help=f"comma-separated methods among default,dense,greedy,mip,crush (default {DEFAULT_METHODS}); "
                   "default is the library's default configuration (join-aware search over expanded candidates)")
    e.add_argument("-k", "--k", default=DEFAULT_KS, metavar="LIST", help=f"comma-separated K values (default {DEFAULT_KS})")
    add_option_arguments(e, ("candidates",))
    e.add_argument("--json", nargs="?", const=True, default=None, metavar="OUT.json",
                   help="print the figures as JSON on stdout instead of the table, as 'retrieve --json' does "
                   "(--json OUT.json, which wrote the file, still does: deprecated, use --json-file)")
    e.add_argument("--json-file", metavar="OUT.json", help="write the figures as JSON (atomically)")
    e.add_argument("--markdown", metavar="OUT.md", help="write the R / CR table in the paper's layout")
    e.add_argument("--plot", metavar="OUT.png", help="plot R and CR against K and selection time per method")
    e.add_argument("--limit", type=int, metavar="N", help="evaluate the first N multi-table questions only")
    e.add_argument("--decomposer", choices=("benchmark", "heuristic"),
                   help="sub-queries from the folder's decomp.json or the heuristic decomposer "
                   "(default: decomp.json when present, the heuristic otherwise)")
    e.add_argument("--mip-time-limit", type=float, default=60.0, metavar="SECONDS",
                   help="time limit of each MIP solve (default 60)")
    e.add_argument("--weights", metavar="COV,JOIN,COARSE",
                   help="run the greedy with these weights (l_cov,l_join,l_coarse; default 2,1,4)")
    hubness_argument(e)
    e.add_argument("--ablation", action="store_true",
                   help="also run the paper's ablation weight configurations of the greedy")
    add_embedding_options(e)
    add_option_arguments(e, JOIN_OPTIONS)
    first_stage_argument(e)
    e.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    e.set_defaults(func=run_eval)
    return e


def _int_list(text: str, what: str) -> list[Any]:
    parts = [p.strip() for p in str(text).split(",")]
    out: list[Any] = []
    for p in parts:
        if p == "auto" and what == "--k":  # k="auto": the tables the question needs
            out.append(p)
            continue
        try:
            v = int(p)
        except ValueError:
            raise InvalidArgumentError(f"{what} takes comma-separated integers, got {text!r}") from None
        if v <= 0:
            raise InvalidArgumentError(f"{what}: every K must be >= 1, got {v}")
        out.append(v)
    return list(dict.fromkeys(out))


def _methods(text: str) -> list[str]:
    from jar_core.eval.harness import METHODS

    out = [m.strip().lower() for m in str(text).split(",") if m.strip()]
    if not out:
        raise InvalidArgumentError("--methods needs at least one method")
    for m in out:
        if m not in METHODS:
            raise InvalidArgumentError(f"unknown method {m!r} in --methods (choose from {', '.join(METHODS)})")
    return list(dict.fromkeys(out))


def _check_out(path: str | None, flag: str) -> None:
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise InvalidArgumentError(f"{flag} {path}: is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidArgumentError(f"{flag} {path}: folder {parent} does not exist")
    try:  # checked now rather than after a long run: a file can be created there
        with tempfile.NamedTemporaryFile(prefix=f".{p.name}.", suffix=".probe", dir=parent):
            pass
    except OSError as e:
        raise InvalidArgumentError(f"{flag} {path}: cannot write in {parent}: {e.strerror or e}") from None
    if p.exists() and not os.access(p, os.W_OK):
        raise InvalidArgumentError(f"{flag} {path}: the file is not writable")


def _json_output(args: argparse.Namespace) -> tuple[str | None, bool]:
    """The file ``--json-file`` (or the deprecated ``--json FILE``) names, and whether ``--json``
    alone asks for the figures on stdout."""
    if isinstance(args.json, str):
        if args.json_file:
            raise InvalidArgumentError("--json FILE and --json-file both name a file; pass --json-file only")
        show_warning(f"--json FILE is deprecated: use --json-file {args.json} (--json alone prints the "
                     "figures as JSON on stdout)", DeprecationWarning, "", 0)
        return args.json, False
    return args.json_file, args.json is True


def run_eval(args: argparse.Namespace) -> int:
    from jar_core.eval import report
    from jar_core.eval.harness import evaluate, method_specs, prepare
    from jar_core.loaders import load_benchmark
    from jar_core.retriever import TableRetriever

    methods = _methods(args.methods)
    ks = _int_list(args.k, "--k")
    if args.candidates <= 0:
        raise InvalidArgumentError(f"--candidates must be >= 1, got {args.candidates}")
    if args.limit is not None and args.limit <= 0:
        raise InvalidArgumentError(f"--limit must be >= 1, got {args.limit}")
    if not (args.mip_time_limit > 0 and math.isfinite(args.mip_time_limit)):
        raise InvalidArgumentError(f"--mip-time-limit must be > 0 seconds, got {args.mip_time_limit}")
    if not 0.0 <= args.hubness <= 2.0:
        raise InvalidArgumentError(f"--hubness must be between 0 and 2, got {args.hubness}")
    weights = parse_weights(args.weights) if args.weights else None
    if weights is not None and "greedy" not in methods:
        raise InvalidArgumentError("--weights applies to the greedy: add greedy to --methods")
    json_file, json_stdout = _json_output(args)
    for path, flag in ((json_file, "--json-file"), (args.markdown, "--markdown"), (args.plot, "--plot")):
        _check_out(path, flag)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InvalidArgumentError("--plot needs matplotlib (pip install matplotlib)") from None
    folder = Path(args.folder)
    if not folder.is_dir():
        raise BenchmarkFormatError(f"benchmark folder {folder} does not exist")

    bench = load_benchmark(folder)
    if args.decomposer == "benchmark" and bench.decompositions is None:
        raise BenchmarkFormatError(
            f"--decomposer benchmark needs {folder / 'decomp.json'}, which is missing (use --decomposer heuristic)"
        )
    specs = method_specs(methods, weights=weights, ablation=args.ablation, mip_time_limit=args.mip_time_limit)
    progress = progress_enabled(args)
    retriever = TableRetriever(
        bench.schema, embedder=embedder_from_args(args), progress=progress, **join_options(args),
        **option_values(args, ("candidates", "candidate_generator", "hubness")), **PAPER_CANDIDATES,
    )
    if not args.no_cache:
        from jar_core.index.store import cache_path

        retriever.load_or_build_index(cache_path(retriever.schema, retriever.embedder.name))
    prepared = prepare(
        bench, retriever, decomposer=args.decomposer, candidates=args.candidates, limit=args.limit,
        crush=any(s.kind == "crush" for s in specs), default=any(s.kind == "default" for s in specs),
        progress=progress,
    )
    result = evaluate(prepared, specs, ks, progress=progress)
    payload = result.to_dict()
    if json_file:
        report.write_json(json_file, payload)
    if args.markdown:
        report.write_text(args.markdown, report.markdown(payload))
    if args.plot:
        report.plot(payload, args.plot)
    if json_stdout:
        print(json_safe(json.dumps(payload, indent=2, ensure_ascii=False)))
        return 0
    print_line(report.text_table(payload))
    print_line(f"decomposer: {prepared.decomposer}; {prepared.multi_table_questions} multi-table of "
          f"{prepared.total_questions} questions"
          + (f"; {len(prepared.unparseable)} skipped (unparseable gold SQL)" if prepared.unparseable else ""))
    return 0
