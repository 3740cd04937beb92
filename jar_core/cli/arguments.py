"""The command's arguments: built from the options record (:mod:`jar_core.options`) and read back.

Every retrieval option with a flag in :data:`~jar_core.options.RETRIEVER_OPTIONS` becomes that flag
here (type, default, metavar, choices and help from the record), and :func:`option_values` turns the
parsed flags back into :class:`~jar_core.retriever.TableRetriever` options. Also the source options
(``--db`` / ``--ddl`` / ``--benchmark`` / ``--index``) and :func:`retriever_from_args`, the embedding
options, ``--strategy`` / ``--weights``, and the parser that makes usage errors one line.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from jar_core.errors import InvalidArgumentError
from jar_core.options import Option, option
from jar_core.schema import MAX_SAMPLE_VALUES
from jar_core.strategies import JoinAwareStrategy

__all__ = [
    "Parser", "CommandParser", "add_option_arguments", "option_values", "add_call_arguments", "k_value",
    "add_source_arguments", "add_embedding_options", "embedding_arguments", "embedder_from_args", "retriever_from_args", "is_demo",
    "cache_path", "load_cached_index", "progress_enabled", "add_strategy_arguments", "strategy_from_args", "parse_weights",
    "DEFAULT_STRATEGY", "JOIN_OPTIONS", "SEARCH_OPTIONS", "join_options", "searcher_options",
    "first_stage_argument", "hubness_argument",
]

#: The options of how joins are found (``retrieve``, ``serve``, ``eval``).
JOIN_OPTIONS = ("joins", "min_join_score", "cross_database_joins")
#: The switchable parts of the default search (docs/method.md, "Beyond the paper"; ``retrieve``, ``serve``).
SEARCH_OPTIONS = ("expand", "match_values", "lexical", "lexical_relevance", "hubness", "kind_values")

#: The strategy a retriever uses when none is given.
DEFAULT_STRATEGY = JoinAwareStrategy.name


# -- the options record -------------------------------------------------------------------
def _add_option(p: Any, o: Option, help: str | None = None) -> None:
    """``o``'s flag on ``p`` (a parser or a group), as the record defines it."""
    assert o.flag is not None, o.name
    if o.negated or o.default is False:  # a switch: --cross-database-joins, --no-values
        p.add_argument(o.flag, action="store_true", help=help or (f"do not {o.help}" if o.negated else o.help))
        return
    kind: dict[str, Any] = {"choices": o.choices} if o.choices else {"type": type(o.default), "metavar": o.metavar}
    default = o.cli_default if o.cli_default is not None else o.default
    p.add_argument(o.flag, default=default, help=help or o.help, **kind)


def add_option_arguments(p: Any, names: Sequence[str]) -> None:
    """The flags of the retrieval options ``names`` (:data:`jar_core.options.RETRIEVER_OPTIONS`)."""
    for name in names:
        _add_option(p, option(name))


def option_values(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    """The :class:`TableRetriever` options ``names`` as the parsed flags give them (checked by the retriever)."""
    out = {}
    for name in names:
        o = option(name)
        value = getattr(args, o.dest)
        out[name] = not value if o.negated else value
    return out


def k_value(text: str) -> int | str:
    """``-k``: a number of tables or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k takes a positive integer or 'auto', got {text!r}") from None


def add_call_arguments(p: argparse.ArgumentParser, names: Sequence[str] = ("k", "include", "exclude", "database"),
                       k_help: str | None = None) -> None:
    """The per-call arguments ``names`` of :data:`jar_core.options.CALL_OPTIONS` (``-k``, ``--include``...)."""
    for name in names:
        o = option(name)
        if name == "k":  # -k and --k: the spelling of every command (eval's takes a list)
            p.add_argument("-k", "--k", dest="k", type=k_value, default=o.default, help=k_help or o.help)
        elif isinstance(o.default, tuple):  # a list of tables: repeatable
            p.add_argument(o.flag, action="append", metavar=o.metavar, help=o.help)
        else:
            p.add_argument(o.flag, metavar=o.metavar, help=o.help)


def first_stage_argument(p: argparse.ArgumentParser) -> None:
    """``--first-stage``: how the candidate set is found (:mod:`jar_core.candidates.ann`)."""
    add_option_arguments(p, ("candidate_generator",))


def hubness_argument(p: argparse.ArgumentParser) -> None:
    """``--hubness W``: the weight of the hub-table correction (:mod:`jar_core.signals.hubness`)."""
    add_option_arguments(p, ("hubness",))


def join_options(args: argparse.Namespace) -> dict[str, Any]:
    """The join options of ``--joins`` / ``--min-join-score`` / ``--cross-database-joins``."""
    x = args.min_join_score
    if not (0.0 <= x <= 1.0):
        raise InvalidArgumentError(f"--min-join-score must be between 0 and 1, got {x}")
    return option_values(args, JOIN_OPTIONS)


def searcher_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`TableRetriever` options of ``retrieve`` and ``serve``: candidates, first stage,
    strategy, join and search switches."""
    options: dict[str, Any] = {**option_values(args, ("candidates",)), **join_options(args),
                               **option_values(args, SEARCH_OPTIONS), **option_values(args, ("candidate_generator",))}
    strategy = strategy_from_args(args)
    if strategy is not None:
        options["strategy"] = strategy
    return options


# -- the search strategy ------------------------------------------------------------------
def add_strategy_arguments(p: argparse.ArgumentParser) -> None:
    """``--strategy`` and ``--weights`` (``retrieve`` and ``serve``)."""
    from jar_core.strategies import STRATEGIES

    p.add_argument("--strategy", choices=STRATEGIES, help=option("strategy").help)
    p.add_argument("--weights", metavar="COV,JOIN,COARSE",
                   help="weights of the join-aware or greedy search (defaults 3,1,4 and 2,1,4)")


def strategy_from_args(args: argparse.Namespace) -> Any:
    """The strategy of ``--strategy`` / ``--weights`` (``None``: the retriever's default, join-aware)."""
    from jar_core import strategies

    if args.weights is not None:
        weights = parse_weights(args.weights)
        name = args.strategy or DEFAULT_STRATEGY
        if name not in strategies.WEIGHTED_STRATEGIES:
            raise InvalidArgumentError(
                f"--weights sets the weights of the greedy searches ({', '.join(strategies.WEIGHTED_STRATEGIES)}); "
                f"it does not apply to --strategy {name}"
            )
        return strategies.get_strategy(name, **dict(zip(("l_cov", "l_join", "l_coarse"), weights)))
    return strategies.get_strategy(args.strategy) if args.strategy else None


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


# -- the source and the embedding model -----------------------------------------------------
def add_source_arguments(p: argparse.ArgumentParser, *, saved_index: bool = True) -> None:
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
    o = option("descriptions")
    src.add_argument(o.flag, metavar=o.metavar,
                     help="descriptions of the tables and columns, embedded and searched with them (they replace the "
                     "source's comments): a dbt target/manifest.json, a dbt .yml property file, a dbt project folder, "
                     'or a JSON object {"table": "text", "table.column": "text"}')
    add_embedding_options(src)


def add_embedding_options(group: Any) -> None:
    """``--model``, ``--backend`` and ``--threads``: the embedding model (``embedder``)."""
    group.add_argument("--model", metavar="NAME", help="sentence-transformers model name or path "
                       "(default: the bundled all-MiniLM-L6-v2)")
    group.add_argument("--backend", choices=("auto", "onnx", "torch"),
                       help="run the bundled model on ONNX Runtime or PyTorch (default: $JAR_RETRIEVAL_BACKEND, "
                       "else auto = ONNX Runtime when installed)")
    group.add_argument("--threads", type=int, metavar="N",
                       help="encoder threads (default: $JAR_RETRIEVAL_THREADS, else 1 per question and all "
                       "cores for large batches)")


def embedding_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """``--model``, ``--backend`` and ``--threads`` (checked) as ``model`` / ``backend`` / ``threads``."""
    if args.threads is not None and args.threads < 1:
        raise InvalidArgumentError(f"--threads must be >= 1, got {args.threads}")
    return {"model": args.model, "backend": args.backend, "threads": args.threads}


def embedder_from_args(args: argparse.Namespace) -> Any:
    """The embedder that ``--model``, ``--backend`` and ``--threads`` ask for."""
    from jar_core.embed.embedders import get_embedder

    chosen = embedding_arguments(args)
    return get_embedder(chosen.pop("model"), **chosen)


def is_demo(args: argparse.Namespace) -> bool:
    """Whether no source is given (the bundled demo database)."""
    return not (args.db or args.ddl or args.benchmark or args.index)


def _check_source(args: argparse.Namespace) -> None:
    """:class:`InvalidArgumentError` for source options that do not go together."""
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


def retriever_from_args(args: argparse.Namespace, **options: Any) -> Any:
    """The :class:`TableRetriever` over the source the arguments name, with ``options``."""
    from jar_core.retriever import TableRetriever

    _check_source(args)
    if "embedder" not in options:
        options["embedder"] = embedder_from_args(args)
    if getattr(args, "descriptions", None):
        options["descriptions"] = Path(args.descriptions)
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


def cache_path(retriever: Any) -> Path:
    """Where the index cache of ``retriever``'s source and model is."""
    from jar_core.index.store import cache_path as path

    return path(retriever.schema, retriever.embedder.name)


def load_cached_index(retriever: Any, *, store_samples: bool = True) -> None:
    """Load or build ``retriever``'s cached index. A schema not cached yet (a description changed,
    a table added) reuses the vectors of the last index cached for the same databases and model
    (:func:`jar_core.index.store.last_cached`): only the texts that changed are embedded."""
    from jar_core.index.store import last_cached, remember_cached

    path = cache_path(retriever)
    previous = last_cached(retriever.schema, retriever.embedder.name)
    retriever.load_or_build_index(path, store_samples=store_samples,
                                  previous=previous if previous != path else None)
    if path.exists():
        remember_cached(retriever.schema, retriever.embedder.name, path)


def progress_enabled(args: argparse.Namespace) -> bool:
    """Progress bars: on a terminal, without ``--quiet``."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


# -- the parser ---------------------------------------------------------------------------
#: A value that argparse would take for an option because it begins with '-': '-1,1,1', '-.5'.
_NEGATIVE_VALUE = re.compile(r"-\.?\d")


class Parser(argparse.ArgumentParser):
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


class CommandParser(Parser):
    """The parser of a command: an argument it does not know is its usage error, which names the
    command's help (``see jar-retrieval retrieve --help``), not the top-level one."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras
