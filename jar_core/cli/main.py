"""The ``jar-retrieval`` command: ``retrieve``, ``index``, ``serve`` (MCP), ``bench`` and ``eval``.

This module dispatches: it builds the parser (each command's arguments are in
:mod:`jar_core.cli.commands` and :mod:`jar_core.cli.eval`, built from the options record by
:mod:`jar_core.cli.arguments`), runs the command and turns errors into exit codes. Every error the
library raises becomes one line on stderr: exit status 2 for a usage error (a bad flag or
argument value, :class:`~jar_core.errors.InvalidArgumentError`), 1 for an error of the source or
of the run (:data:`EXIT_STATUSES`); warnings are one line each (:mod:`jar_core.cli.printing`).
"""
from __future__ import annotations

import argparse
import sys
import warnings
from typing import Sequence

from jar_core.cli import commands
from jar_core.cli.arguments import (
    DEFAULT_STRATEGY,
    CommandParser,
    Parser,
    add_embedding_options,
    embedder_from_args,
    parse_weights,
    progress_enabled,
    retriever_from_args,
)
from jar_core.cli.eval import add_eval_parser
from jar_core.cli.logs import setup_logging
from jar_core.cli.printing import PROG, print_line, show_warning
from jar_core.errors import InvalidArgumentError, JarError

__all__ = ["main", "build_parser", "add_embedding_options", "embedder_from_args", "parse_weights"]

#: How a command makes its retriever and whether it shows progress bars (looked up when a command
#: runs, so that a caller can replace them).
_retriever = retriever_from_args
_progress_enabled = progress_enabled
#: The strategy a retriever uses when none is given.
_DEFAULT_STRATEGY = DEFAULT_STRATEGY


def _cmd_retrieve(args: argparse.Namespace) -> int:
    return commands.run_retrieve(args, _retriever, _progress_enabled(args))


def _cmd_index(args: argparse.Namespace) -> int:
    return commands.run_index(args, _retriever, _progress_enabled(args))


def _cmd_serve(args: argparse.Namespace) -> int:
    return commands.run_serve(args, _retriever)


def _cmd_bench(args: argparse.Namespace) -> int:
    return commands.run_bench_command(args)


#: The exit statuses, as every command's help ends with them.
EXIT_STATUSES = (
    "exit status: 0 done; 1 the source or the run failed (a database, file or index that cannot be "
    "read, a model that cannot be loaded); 2 usage error (an unknown option, a bad or missing value); "
    "130 interrupted"
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the command and of each of its commands."""
    p = Parser(prog=PROG, description="Join-aware multi-table retrieval.", epilog=EXIT_STATUSES)
    _add_global_options(p, command=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    sub.required = True
    commands.add_retrieve_parser(sub).set_defaults(func=_cmd_retrieve)
    commands.add_index_parser(sub).set_defaults(func=_cmd_index)
    commands.add_serve_parser(sub).set_defaults(func=_cmd_serve)
    commands.add_bench_parser(sub).set_defaults(func=_cmd_bench)
    add_eval_parser(sub)
    for command in sub.choices.values():
        _add_global_options(command, command=True)
        command.epilog = EXIT_STATUSES
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose, args.quiet)
    # The encoder's threads are the library's choice (jar_core.embed.embedders: one per question, all
    # cores for large batches; --threads or $JAR_RETRIEVAL_THREADS override it).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = show_warning
            return int(args.func(args) or 0)
    except JarError as e:
        print_line(f"{PROG}: error: {e}", file=sys.stderr, one_line=True)
        return 2 if isinstance(e, InvalidArgumentError) else 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
