"""The options of a retrieval, in one place: each defined once, with its default, check and help.

:data:`RETRIEVER_OPTIONS` is the record of :class:`~jar_core.retriever.TableRetriever`'s keyword
options (METHOD.md "Retrieval" and docs/method.md "Beyond the paper": the candidate set, the join
graph, the switches of the search); :data:`CALL_OPTIONS` that of the per-call arguments (``k``,
``include``, ``exclude``, ``database``). Every entry point reads them: the retriever's
constructor, ``options()`` and ``with_options``, the command's arguments (``jar_core.cli.arguments``),
``eval``, the MCP server, the LangChain fields and the LlamaIndex fields and ``persist``.

Adding a retrieval option is one :class:`Option` in :data:`RETRIEVER_OPTIONS` plus its use (the
keyword argument of ``TableRetriever.__init__`` and the code that reads it); the command then
takes its flag, ``options()`` / ``with_options`` carry it and ``persist`` saves it.
"""
from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from jar_core.errors import InvalidArgumentError

__all__ = [
    "DEFAULT_LEXICAL", "DEFAULT_EXPAND", "DEFAULT_MIN_JOIN_SCORE", "DEFAULT_HUBNESS", "DEFAULT_KIND_VALUES", "DEFAULT_LEXICAL_RELEVANCE",
    "DEFAULT_CANDIDATES", "DEFAULT_K", "JOIN_MODES", "FIRST_STAGES", "MAX_QUESTION_CHARS",
    "Option", "RETRIEVER_OPTIONS", "CALL_OPTIONS", "option", "check_retriever_options", "split_options",
    "FIND_TABLES_DESCRIPTION", "QUESTION_HELP", "K_HELP", "INCLUDE_HELP",
    "check_question", "check_subqueries", "check_k", "check_k_or_auto", "check_table_names", "check_options",
    "convert_option", "check_weight", "check_count", "check_score", "check_descriptions",
]

#: Default ``lexical``: weight of BM25 fused with dense similarity for the candidate set.
DEFAULT_LEXICAL = 0.7

#: Default ``expand``: tables joinable to the strongest candidates added to the candidate set.
DEFAULT_EXPAND = 10

#: Default ``min_join_score``: joins below it are not shown or used (chosen by measurement, docs/results.md).
DEFAULT_MIN_JOIN_SCORE = 0.5

#: Default ``hubness``: weight of the correction of fine relevance for hub tables (:mod:`jar_core.signals.hubness`).
DEFAULT_HUBNESS = 0.5

#: Default ``kind_values``: the fine relevance below which a sub-query counts as a value of its
#: database's kinds table (:mod:`jar_core.signals.kinds`; chosen on the development suite, docs/results.md).
DEFAULT_KIND_VALUES = 0.35

#: Default ``lexical_relevance``: weight of BM25 in the coarse relevance the search itself sees
#: (measured in docs/results.md, "Beyond the paper").
DEFAULT_LEXICAL_RELEVANCE = 0.1

#: Default ``candidates``: the size N of the candidate set (the paper's).
DEFAULT_CANDIDATES = 20

#: Default ``k``: tables per question.
DEFAULT_K = 5

#: How joins are found: ``"rules"`` (declared keys, naming, value inclusion) or ``"paper"`` (the pair score).
JOIN_MODES = ("rules", "paper")

#: The first stages ``candidate_generator`` names (:mod:`jar_core.candidates.ann`).
FIRST_STAGES = ("auto", "exact", "ann")


def check_subqueries(subqueries: Any) -> tuple[str, ...]:
    """Given sub-queries as a tuple of non-blank strings (one string is one sub-query), or
    :class:`InvalidArgumentError`."""
    items = [subqueries] if isinstance(subqueries, str) else subqueries
    try:
        items = list(items)
    except TypeError:
        raise InvalidArgumentError(f"subqueries must be a string or a list of strings, got {subqueries!r}") from None
    bad = [s for s in items if not isinstance(s, str)]
    if bad:
        raise InvalidArgumentError(f"subqueries must be strings, got {bad[0]!r}")
    return tuple(s for s in items if s.strip())


def check_weight(name: str, value: Any, top: float) -> float:
    """``value`` as a float weight in ``[0, top]``, or :class:`InvalidArgumentError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= top:
        raise InvalidArgumentError(f"{name} must be a weight in [0, {top:g}], got {value!r}")
    return float(value)


#: Terminal escape sequences (``\x1b[31m``) and control characters other than white space: no
#: words of a question, and their remains (``31m``) would become sub-queries.
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


#: The longest question, in characters (the command, the MCP server and the agent tools all
#: check it here): a question is a sentence or a paragraph, and a 10 MB one took 23 s of CPU.
MAX_QUESTION_CHARS = 10_000


def check_question(question: Any) -> str:
    """The stripped question without terminal escape sequences and control characters, or
    :class:`InvalidArgumentError` if it is not a string with words or is longer than
    :data:`MAX_QUESTION_CHARS` characters."""
    if not isinstance(question, str):
        raise InvalidArgumentError(f"the question must be a string, got {type(question).__name__}")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidArgumentError(
            f"the question is {len(question):,} characters long, more than the {MAX_QUESTION_CHARS:,} allowed"
        )
    if not question.strip():
        raise InvalidArgumentError("the question is empty")
    question = _CONTROL.sub(" ", _ESCAPE.sub("", question))
    if not question.strip():
        raise InvalidArgumentError(
            "the question has no words: it holds only control characters or terminal escape sequences, "
            "and is empty without them"
        )
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(
            f"the question is not valid text: {question[e.start]!r} at position {e.start} is an unpaired "
            "surrogate (invalid UTF-8 on the command line?)"
        ) from None
    return question.strip()


def check_table_names(names: str | Iterable[str] | None, what: str = "include") -> list[str]:
    """Table names as a list: one string is one name (``include="books"``), ``None`` is none."""
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    try:
        out = list(names)
    except TypeError:
        raise InvalidArgumentError(f"{what} takes a table name or a list of them, got {type(names).__name__}") from None
    for n in out:
        if not isinstance(n, str):
            raise InvalidArgumentError(f"{what} takes table names (strings), got {n!r}")
    return out


def check_k(k: Any, name: str = "k") -> int:
    """``k`` as an int >= 1, or :class:`InvalidArgumentError`."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgumentError(f"{name} must be a positive integer, got {k!r}")
    if k <= 0:
        raise InvalidArgumentError(f"{name} must be >= 1, got {k}")
    return int(k)


def check_k_or_auto(k: Any, name: str = "k") -> int | str:
    """``k`` as an int >= 1 or the string ``"auto"``, or :class:`InvalidArgumentError`."""
    if isinstance(k, str) and k.strip().lower() == "auto":
        return "auto"
    return check_k(k, name)


def check_options(options: Any, func: Callable[..., Any], what: str) -> dict[str, Any]:
    """``options`` (a mapping of keyword options of ``func``, or ``None``) as a dict, or
    :class:`InvalidArgumentError` naming the unknown ones and listing those ``func`` accepts."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidArgumentError(f"{what} must be a dict of options of {func.__name__}, got {type(options).__name__}")
    accepted = [p.name for p in inspect.signature(func).parameters.values() if p.kind is p.KEYWORD_ONLY]
    unknown = [key for key in options if key not in accepted]
    if unknown:
        raise InvalidArgumentError(
            f"unknown {what} {', '.join(map(repr, unknown))} (options of {func.__name__}: {', '.join(accepted)})"
        )
    return dict(options)


def check_part(value: Any, method: str, what: str, accepted: str) -> None:
    """:class:`InvalidArgumentError` unless ``value`` has a callable ``method`` (a decomposer, a strategy)."""
    if not callable(getattr(value, method, None)):
        raise InvalidArgumentError(f"{what} must be {accepted}, got {value!r:.100}")


def convert_option(
    options: dict[str, Any], key: str, core_key: str, convert: Callable[[Any], Any] | None = None
) -> None:
    """Replace ``options[key]`` (a framework's model) by ``options[core_key] = convert(value)``, in place.

    The adapters map their ``llm=`` / ``embeddings=`` options onto :class:`TableRetriever`'s
    ``decomposer`` / ``embedder`` this way; passing both raises :class:`InvalidArgumentError`.
    """
    value = options.pop(key, None)
    if value is None:
        return
    if options.get(core_key) is not None:
        raise InvalidArgumentError(f"pass either {key}= or {core_key}=, not both")
    options[core_key] = convert(value) if convert is not None else value


def check_count(name: str, value: Any) -> int:
    """``value`` as an int >= 0 (``expand``, ``expand_seeds``), or :class:`InvalidArgumentError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidArgumentError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def check_score(name: str, value: Any) -> float:
    """``value`` as a float in ``[0, 1]`` (``min_join_score``), or :class:`InvalidArgumentError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise InvalidArgumentError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _check_joins(name: str, value: Any) -> str:
    if value not in JOIN_MODES:
        raise InvalidArgumentError(f"{name} must be one of {', '.join(JOIN_MODES)}, got {value!r}")
    return str(value)


def check_descriptions(name: str, value: Any) -> dict[str, str] | Path | None:
    """``value`` as ``{table or "table.column": text}`` (``None`` when empty) or as the path of a file
    of them (a dbt manifest or property file, a dbt project, a JSON mapping: read by
    :func:`jar_core.loaders.dbt.read_descriptions`), or :class:`InvalidArgumentError` naming ``name``."""
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f'{name} must be a mapping {{table: text, "table.column": text}}, '
                                   f"got {type(value).__name__}")
    bad = next(((key, text) for key, text in value.items()
                if not isinstance(key, str) or not key.strip() or not isinstance(text, str)), None)
    if bad is not None:
        raise InvalidArgumentError(f"{name}: expected a table or column name -> text, got {bad[0]!r:.80}: {bad[1]!r:.80}")
    return dict(value) or None


# -- the options record ---------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One option: its definition, read by every entry point.

    Attributes:
        name: the keyword argument (``TableRetriever(name=...)``, the adapters' keyword options).
        type: its annotation, as text (for the reader and the docs).
        default: the value when none is given.
        help: one line on what it does (the command's ``--help`` prints it).
        check: ``check(name, value)`` returns the value to keep or raises :class:`InvalidArgumentError`
            (``None``: taken as given; objects are resolved by their user).
        flag: the command's flag, if any (``--min-join-score``); ``negated``: the flag turns it off
            (``--no-values`` sets ``match_values=False``).
        metavar, choices, cli_default: the flag's metavar, choices and default when they differ
            from ``default`` (``--first-stage auto`` for ``candidate_generator=None``).
        attribute: the retriever's attribute that holds it, when not ``name`` (``n_candidates``).
        persisted: whether ``persist`` (LlamaIndex) saves it as a plain value: objects (the embedder,
            the decomposer, the first stage) are passed again on load, the strategy is saved by
            name and weights, the progress display is a choice of the run.
    """

    name: str
    type: str
    default: Any
    help: str
    check: Callable[[str, Any], Any] | None = None
    flag: str | None = None
    negated: bool = False
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    cli_default: Any = None
    attribute: str | None = None
    persisted: bool = True

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments (``--no-values`` -> ``no_values``)."""
        return (self.flag or self.name).lstrip("-").replace("-", "_")

    @property
    def held_as(self) -> str:
        """The retriever's attribute that holds the option."""
        return self.attribute or self.name

    def checked(self, value: Any) -> Any:
        return value if self.check is None else self.check(self.name, value)


#: The keyword options of :class:`~jar_core.retriever.TableRetriever` (schema and index aside), in
#: the order of its signature; the docstring of the class says more of each.
RETRIEVER_OPTIONS: tuple[Option, ...] = (
    Option("embedder", "Embedder | Any | str | None", None,
           "None for the bundled all-MiniLM-L6-v2, a sentence-transformers model name, or any object with "
           "embed_documents / embed_query", persisted=False),
    Option("decomposer", "Decomposer | None", None,
           "splits questions into sub-queries (None: the heuristic decomposer)", persisted=False),
    Option("strategy", "SearchStrategy | str | None", None,
           "search strategy (default join-aware; greedy is the paper's)", persisted=False),
    Option("candidates", "int", DEFAULT_CANDIDATES,
           "candidate set: the N tables most similar to the question, which the search re-ranks "
           f"(default {DEFAULT_CANDIDATES}; every table when the source has fewer)",
           check=lambda name, v: check_k(v, name), flag="--candidates", metavar="N", attribute="n_candidates"),
    Option("candidate_generator", "CandidateGenerator | str | None", None,
           "how the candidates are found: brute force (exact), an approximate vector index "
           "(ann, needs faiss-cpu), or brute force below 20,000 tables and ann from there (auto, default)",
           flag="--first-stage", choices=FIRST_STAGES, cli_default="auto", persisted=False),
    Option("progress", "bool", False, "show progress bars while the index is built", persisted=False),
    Option("joins", "str", "rules",
           "how joins are found: declared keys, naming rules and value inclusion (rules, default) "
           "or the paper's pair score (paper)", check=_check_joins, flag="--joins", choices=JOIN_MODES),
    Option("min_join_score", "float", DEFAULT_MIN_JOIN_SCORE,
           f"drop joins with a lower confidence (0..1, default {DEFAULT_MIN_JOIN_SCORE})",
           check=check_score, flag="--min-join-score", metavar="X"),
    Option("cross_database_joins", "bool", False, "also infer joins between tables of different databases",
           check=lambda name, v: bool(v), flag="--cross-database-joins"),
    Option("expand", "int", DEFAULT_EXPAND,
           f"add up to N tables joinable to the most relevant candidates (bridge tables; default {DEFAULT_EXPAND}, 0 off)",
           check=check_count, flag="--expand", metavar="N"),
    Option("expand_seeds", "int", 5, "the most relevant candidates whose joinable tables expansion adds",
           check=check_count),
    Option("match_values", "bool", True, "match the question's words against the columns' sample values",
           check=lambda name, v: bool(v), flag="--no-values", negated=True),
    Option("lexical", "float", DEFAULT_LEXICAL,
           f"weight of BM25 fused with dense similarity to rank candidates (0..1, default {DEFAULT_LEXICAL}; "
           "0 is dense only)", check=lambda name, v: check_weight(name, v, 1.0), flag="--lexical", metavar="W"),
    Option("collapse_copies", "bool", True,
           "keep one copy of a table found in several databases of a lake (the best-ranked database's)",
           check=lambda name, v: bool(v)),
    Option("hubness", "float", DEFAULT_HUBNESS,
           f"weight of the hub-table correction of fine relevance (0..2, default {DEFAULT_HUBNESS}; "
           "0 is the paper's fine relevance)", check=lambda name, v: check_weight(name, v, 2.0),
           flag="--hubness", metavar="W"),
    Option("kind_values", "float", DEFAULT_KIND_VALUES,
           f"a sub-query no table's column matches this well (0..1, default {DEFAULT_KIND_VALUES}; 0 off) counts "
           "as a value of its database's one table named as a kind (category, type, genre), else of its "
           "tables with a column so named (at most two)",
           check=lambda name, v: check_weight(name, v, 1.0), flag="--kind-values", metavar="F"),
    Option("lexical_relevance", "float", DEFAULT_LEXICAL_RELEVANCE,
           f"weight of BM25 in the search's coarse relevance (0..1, default {DEFAULT_LEXICAL_RELEVANCE})",
           check=lambda name, v: check_weight(name, v, 1.0), flag="--lexical-relevance", metavar="W"),
    Option("descriptions", "Mapping[str, str] | str | os.PathLike[str] | None", None,
           'descriptions of tables and columns, {table: text, "table.column": text}, or a file of them (a dbt '
           "manifest.json or .yml, a dbt project folder, a JSON mapping): they replace the sources' comments "
           "and, like them, are embedded and searched with the table", check=check_descriptions,
           flag="--descriptions", metavar="FILE"),
)

#: The per-call arguments of a retrieval (``retrieve``, the adapters' ``invoke`` / ``retrieve``,
#: the agent tools, the command): their defaults are the adapters' fields'.
CALL_OPTIONS: tuple[Option, ...] = (
    Option("k", "int | str", DEFAULT_K,
           f"number of tables, or 'auto' (as few as cover the question and join up, at most 10; default {DEFAULT_K})",
           check=lambda name, v: check_k_or_auto(v, name), flag="-k"),
    Option("include", "list[str]", (), "pin a table (repeatable)",
           check=lambda name, v: check_table_names(v, name), flag="--include", metavar="TABLE"),
    Option("exclude", "list[str]", (), "never return a table (repeatable)",
           check=lambda name, v: check_table_names(v, name), flag="--exclude", metavar="TABLE"),
    Option("database", "str | None", None, "search the tables of this database only (a lake of many)",
           flag="--database", metavar="DB"),
)

_BY_NAME = {o.name: o for o in (*RETRIEVER_OPTIONS, *CALL_OPTIONS)}


def option(name: str) -> Option:
    """The :class:`Option` named ``name`` (a retriever option or a per-call argument)."""
    return _BY_NAME[name]


def check_retriever_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (retriever options by name) checked, in the record's order."""
    return {o.name: o.checked(values[o.name]) for o in RETRIEVER_OPTIONS if o.name in values}


def split_options(options: Mapping[str, Any], own: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the options named in ``own``, the others) of mixed keyword options: an adapter keeps its own
    fields and passes the rest to :class:`~jar_core.retriever.TableRetriever`, which refuses unknown ones."""
    own = set(own)
    return ({key: v for key, v in options.items() if key in own},
            {key: v for key, v in options.items() if key not in own})


#: The question of an agent tool (``find_tables``), as the tools describe it to a model.
QUESTION_HELP = "The user's question, in natural language."
#: The ``k`` of an agent tool.
K_HELP = "How many tables to return, or 'auto' for as few as cover the question and join up"
#: The ``include`` of an agent tool.
INCLUDE_HELP = "Tables that must be part of the answer, by name (optional)."

#: What the ``find_tables`` agent tool does (LangChain and LlamaIndex; the MCP server's says what its
#: structured content holds).
FIND_TABLES_DESCRIPTION = (
    "Find the few database tables that together answer a question, and how to join them. Input: the "
    "user's question in natural language. Output: the CREATE TABLE statements of those tables (columns, "
    "types, keys) and a join path (FROM ... JOIN ... ON ...) connecting them. Call it first, before "
    "writing SQL. Joins marked inferred are not declared in the schema: check them."
)
