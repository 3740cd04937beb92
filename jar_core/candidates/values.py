"""Value matching: a question that names a table only through a value ('Iron Maiden' -> ``artist``,
'Brazil' -> ``customer.country``) still finds it.

* :class:`ValueIndex` (built once per index, bounded): each column's distinct *text* sample
  values (the loader's bounded samples; a benchmark's ``tapas`` rows), case-folded, 3 to 60
  characters, at most :data:`jar_core.schema.MAX_SAMPLE_VALUES` per column; numbers are left
  out (they match by chance). Memory grows with the number of distinct values, never with rows.
* :func:`match_values`: the question's word n-grams (1 to 4 words, and quoted strings) looked
  up exactly (case-folded), then a fuzzy pass for names (spans written with a capital): an n-gram of 5+ letters within one
  edit of a value (``Iron Maidan``), through a deletion-neighbourhood index (the sorted hashes of
  every value's one-letter deletions), so the cost is one binary search per n-gram and its
  deletions, not a scan of the values.
* A 4-digit year in the question (an ISO date's too) points to date/time columns: tables with a date/time column
  (by type, or by a name with ``date``/``time``/``year`` that is not a key: ``ss_sold_date_sk``
  refers to a date, it is none; a row's audit time, ``ModifiedDate`` / ``last_update`` /
  ``updated_at`` / ``WAREHOUSE_LOAD_DATE``, is none either, nor a measure of a period,
  ``SalesLastYear``, nor a code, a name or a key typed ``DATE`` by mistake) get the match ``<year>`` with a lower weight: those whose date a word of the
  question names ('ordered in 1997' -> ``orders.order_date``, 'hired' -> ``HireDate``), else those
  that measure the question's trade ('sales in 2013' -> ``SalesOrderHeader.OrderDate``), else
  all of them (the year column, else the first date, of each); when some of those a hint
  may point to (``hinted``: the candidates) are date dimensions (named ``date``, ``time``,
  ``calendar``, ``day``, ``month``, ``year`` or ``period``: ``date_dim``, ``TIME_DAY``), only
  those, with a value's full weight (the facts refer to the dimension for their dates: a
  question with a year needs it).
* A number that is neither a year, a time, a count nor a limit ('Is Prof. Donia teaching 452 next
  Winter?', 'NURS 610 was last offered when?') points, with the same lower weight, to the columns
  named as a number of something (``COURSE.NUMBER``, ``FLIGHT_NUMBER``, ``room_no``; not a count,
  ``number_of_students``) where few candidates have one: the benchmarks' samples leave numbers out
  (they match any numeric column by chance), and such a name says where a number given bare is kept.
* A question that asks when, or how recently ('when was it last offered', 'most recently', 'in the
  past', 'this Fall', '3 years ago'; not 'last name'), and names no year, points to the candidates'
  date/time columns, chosen as a year's are, where at most :data:`MAX_TABLES` tables have one: the
  answer is a date, and where dates are few the table that holds them is where it is. How
  recently ('most recently', 'this Fall') asks for a date: not a column typed a time of day
  (``TIME``: a class's start time), which 'when', 'latest' and 'earliest' may ask for.
* A question about money changing hands (``sells``, ``revenue``, ``spent``, ``bought``...)
  points, with the same lower weight, to the tables that measure it: a column whose name ends
  with an amount or a quantity (``InvoiceLine.Quantity``, ``payment.amount``,
  ``SalesOrderHeader.SubTotal``), not a price (``track.UnitPrice``) nor a stock level
  (``units_in_stock``, ``quantity_per_unit``). A transaction table is seldom named by the
  question ("What genre sells the most tracks?" needs ``InvoiceLine``).

The retriever adds a matched value as a sub-query that the matching tables cover (``F = 1``)
and raises their coarse relevance; the result lists every match (:attr:`RetrievalResult.value_matches`).
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from jar_core.joins.profile import words as name_words
from jar_core.joins.words import singular, written_words
from jar_core.glued import split_glued
from jar_core.schema import split_camel

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Schema

__all__ = ["ValueIndex", "ValueMatch", "match_values", "value_candidates", "MIN_CHARS", "MAX_CHARS", "MAX_TABLES", "VALUE_PREFIX",
           "MEASURE_WEIGHT", "MEASURE_WORDS", "NUMBER_WEIGHT", "NUMBER_WORDS", "RETURN_WORDS", "TIME_WEIGHT", "YEAR_WEIGHT",
           "DIMENSION_YEAR_WEIGHT",
           "is_trade_word", "measure_only", "value_index"]

#: How the sub-query of a matched value is named in the signals and the result (``value: Iron Maiden``).
VALUE_PREFIX = "value: "
#: Weight of a year's match to a date/time column (a hint, not a value found).
YEAR_WEIGHT = 0.5
#: Weight of a year's match to a date dimension (``date_dim.d_year``): the dimension holds the year
#: as a value and the facts only refer to it, so the year is as sure as a value found.
DIMENSION_YEAR_WEIGHT = 1.0
#: Weight of a question's asking when, or how recently (``when``, ``most recently``, ``this Fall``),
#: for the date/time columns of the candidates, where few tables have one: the answer is a date, so
#: where dates are few it is as sure as a value found (Advising's ``SEMESTER.YEAR``).
TIME_WEIGHT = 1.0
#: A time of day's type (``TIME``, ``time(6) without time zone``, ``timetz``), not a timestamp's.
_CLOCK_TYPE = re.compile(r"\s*time(tz)?\b(?!stamp)", re.I)
#: The words of :data:`_WHEN` that may ask for a time of day (a flight's) as well as a date.
_ANY_TIME = frozenset({"when", "latest", "earliest"})
#: Words of a question that ask when, or how recently, something was or will be.
_WHEN = re.compile(
    r"\b(when|most recent(?:ly)?|latest|earliest|(?:the )?(?:last|first) time|in the past|right now|currently"
    r"|(?:this|next|last|coming|upcoming|previous|past) (?:years?|months?|weeks?|semesters?|terms?|quarters?"
    r"|seasons?|spring|summer|fall|autumn|winter)|\d+ (?:years?|months?|weeks?|days?) ago)\b", re.I)
#: Weight of a trade word's match to an amount or quantity column (a hint, as a year's).
MEASURE_WEIGHT = 0.5
#: Last words of the columns that measure a sale, a payment or a purchase (``amount``,
#: ``Quantity``, ``OrderQty``, ``SubTotal``, ``ss_net_paid``), not a price or a stock level.
MEASURE_WORDS = frozenset({"amount", "amt", "quantity", "qty", "total", "subtotal", "revenue", "paid"})
#: Words of a measure of goods or money given back (``sr_return_quantity``, ``refund_amount``): it
#: does not measure a sale, a purchase or a payment, so a trade word does not point to it.
RETURN_WORDS = frozenset({"return", "returned", "returns", "refund", "refunded", "refunds"})
#: The noun a trade word names a table by (``sold`` -> ``SalesOrderDetail``, ``bought`` ->
#: ``PurchaseOrderHeader``, ``paid`` -> ``payment``): where measure tables are so named, the hint
#: goes to them alone.
TRADE_NOUNS = {
    **dict.fromkeys(("sell", "sells", "sold", "selling", "sale", "sales"), "sale"),
    **dict.fromkeys(("buy", "buys", "bought", "purchase", "purchased", "purchases"), "purchase"),
    **dict.fromkeys(("pay", "pays", "paid"), "payment"),
    **dict.fromkeys(("revenue", "revenues"), "revenue"),
}
#: Weight of a bare number's match to a column named as a number (a hint, as a year's).
NUMBER_WEIGHT = 0.5
#: Last words of a column named as the number of a thing (``COURSE.NUMBER``, ``FLIGHT_NUMBER``,
#: ``room_no``); with at most one word before it (``number_of_students`` is a count). Not ``num``,
#: as often a numeric value (MIMIC-III's ``VALUENUM``, a measurement) as a number.
NUMBER_WORDS = frozenset({"number", "no", "nbr"})
#: A bare number of 2 to 5 digits, not part of a time (``14:45``), a decimal, a date, a code or a share.
_BARE_NUMBER = re.compile(r"(?<![\w.:/-])(\d{2,5})(?![\w.:/%-])")
#: Words before a number that make it a count, a limit or a time rather than a thing's number
#: ('top 20', 'more than 100', 'after 10', 'between 10 and 2').
_BEFORE_COUNT = re.compile(
    r"\b(top|first|last|than|over|under|least|most|more|fewer|less|above|below|within|after|before|by|at"
    r"|around|about|between|and|to|from|until|till|past|every|each|per)\s+$", re.I)
#: Words after a number that make it a limit ('the 10 most popular', 'the 5 largest').
_AFTER_COUNT = re.compile(r"\s+(most|least|\w+est)\b", re.I)
#: Weight of a place where someone lives (``live in Seattle``) for the candidates' place columns
#: (a hint, as a year's), where no value says where the place is.
PLACE_WEIGHT = 0.5
#: Last words of the columns that hold a place (``City``, ``ca_state``, ``country``).
PLACE_WORDS = frozenset({"city", "town", "state", "province", "country", "county", "region"})
#: Words of a table name that make it where someone lives (``customer_address``, ``Address``).
ADDRESS_WORDS = frozenset({"address", "addr"})
#: Someone living somewhere named (``live in Seattle``: group ``dwell``), or something being there
#: (``based in New York``); group ``place`` the place.
_RESIDENCE = re.compile(
    r"\b(?:(?P<dwell>live|lives|lived|living|reside|resides|resided|residing)|located|based)\s+in\s+"
    r"(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
#: Words of a question about money changing hands.
_TRADE = re.compile(
    r"\b(sell|sells|sold|selling|sale|sales|revenues?|earn|earns|earned|earnings|spend|spends|spent|spending"
    r"|paid|pay|pays|bought|buy|buys|purchase|purchased|purchases|income|turnover)\b", re.I)
#: A span found in more tables than this tells nothing (``male`` in every gender column).
MAX_TABLES = 4
MIN_CHARS = 3
MAX_CHARS = 60
_TOKEN = re.compile(r"[\w'&.-]+", re.UNICODE)
_QUOTED = re.compile(r"[\"“”']([^\"“”']{3,60})[\"“”']")
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_NUMBER = re.compile(r"^[+-]?[\d.,:/ -]+$")
_STOP = frozenset("""a an the of in on at to for from by with and or not no is are was were be been what which who whom
whose how many much list show give find all any each every their there this that these those than then
name names number count total average me do does did has have had""".split())


_DATE_NAME = re.compile(r"(^|_)(date|time|year)($|_)", re.I)
#: A name that says the column is an identifier or a label, whatever its declared type says: a
#: key word refers to a date dimension (``ss_sold_date_sk``), and a code, a name or a key typed
#: a date is a type mislabelled (``DEPARTMENT_CODE DATE``, ``FAC_ROOM_KEY DATE``): no date.
_NOT_A_DATE = re.compile(r"(^|_)(sk|id|key|fk|code|name|number|num|no|type|desc|description)$", re.I)
#: A date dimension's name (``date_dim``, ``TIME_DAY``, ``DimDate``, ``calendar``).
_DATE_TABLE = re.compile(r"(^|_)(dates?|times?|calendars?|days?|months?|years?|periods?)($|_)", re.I)
_YEAR_NAME = re.compile(r"(^|_)year($|_)", re.I)
#: A measure of a period, not a year: ``SalesLastYear``, ``revenue_prior_year``.
_PERIOD_MEASURE = re.compile(r"(^|_)(last|this|next|prior|previous|current)_year($|_)", re.I)
#: A row's audit time, not a date the question can mean: ``ModifiedDate``, ``last_update``, ``updated_at``,
#: a warehouse's ``WAREHOUSE_LOAD_DATE``.
_AUDIT_NAME = re.compile(r"(^|_)(modified|updated?|changed|etl|audit|load|loaded)($|_)|last_?update", re.I)


_DATE_TYPE = re.compile(r"date|time|year|interval", re.I)
#: Words of a date column's name that say nothing of which date it is.
_DATE_WORDS = frozenset({"date", "time", "year", "dt", "timestamp", "on", "at"})
#: Letters a question's word and a date column's name word must begin with alike (``hired`` and
#: ``HireDate``, ``shipped`` and ``l_shipdate``).
_STEM = 4


@lru_cache(maxsize=65536)
def _is_date_column(raw_type: str, name: str) -> bool:
    words = _joined_words(name)
    if _AUDIT_NAME.search(words) is not None or _PERIOD_MEASURE.search(words) is not None:
        return False
    if _NOT_A_DATE.search(words) is not None:
        return False
    # the type's keywords are enough here (no SQL parser needed to spot DATE / TIMESTAMP)
    if _DATE_TYPE.search(raw_type or "") is not None:
        return True
    return _DATE_NAME.search(words) is not None  # ``groupYear INT``, ``birthDate TEXT``: the words, split


def _is_year_column(name: str) -> bool:
    words = _joined_words(name)
    return _YEAR_NAME.search(words) is not None and _PERIOD_MEASURE.search(words) is None


@lru_cache(maxsize=1 << 16)
def _column_words(name: str) -> tuple[str, ...]:
    """The words of a column's name as written, lower case (``OrderQty`` -> ``order``, ``qty``), a
    run-together word split (:func:`jar_core.glued.split_glued`: ``UNITPRICE`` -> ``unit``, ``price``);
    kept per name: a lake's copies repeat a few thousand names."""
    return tuple(p for w in split_camel(name, "_").lower().split("_") for p in split_glued(w))


@lru_cache(maxsize=1 << 16)
def _table_words(name: str) -> frozenset[str]:
    """A table's name's words in the singular, a run-together word split too (``SALESORDERDETAIL``
    -> ``sale``, ``order``, ``detail``; ``CUSTOMERADDRESS``): the trade and address hints' words."""
    return frozenset(name_words(name)) | frozenset(singular(w) for w in written_words(name, glued=True))


def _joined_words(name: str) -> str:
    """:func:`_column_words` joined by ``_``, for the name patterns (``GROUPYEAR`` -> ``group_year``,
    ``groupYear`` -> ``group_year``)."""
    return "_".join(_column_words(name))


def _last_word(name: str) -> str:
    """The last word of a column's name, lower case (``OrderQty`` -> ``qty``, ``ca_state`` -> ``state``)."""
    return _column_words(name)[-1]


def _is_measure_column(name: str) -> bool:
    """Whether the column's name ends with one of :data:`MEASURE_WORDS` (``OrderQty``, ``ss_net_paid``)
    and names nothing given back (:data:`RETURN_WORDS`: not ``sr_return_quantity``)."""
    words = _column_words(name)
    return words[-1] in MEASURE_WORDS and RETURN_WORDS.isdisjoint(words)


def is_trade_word(text: str) -> bool:
    """Whether ``text`` is a word of money changing hands (``sales``, ``bought``, ``revenue``): a
    trade word, whose hint is the measure columns of the tables that record the trade."""
    return _TRADE.fullmatch(text.strip()) is not None


def measure_only(text: str) -> bool:
    """Whether ``text`` is made of :data:`MEASURE_WORDS` alone (``amount``, ``total amount``): it
    asks for a measure, the column a trade word's hint finds, and names no table."""
    words = _norm(text).split()
    return bool(words) and all(w in MEASURE_WORDS for w in words)


def _is_place_column(name: str) -> bool:
    """Whether the column's name ends with one of :data:`PLACE_WORDS` (``City``, ``ca_state``)."""
    return _last_word(name) in PLACE_WORDS


def _is_number_column(name: str) -> bool:
    """Whether the column is named as a thing's number (:data:`NUMBER_WORDS`: ``NUMBER``,
    ``FLIGHT_NUMBER``, ``room_no``), not a count (``number_of_students``, ``NUM_SEMESTERS``)."""
    words = _column_words(name)
    return len(words) <= 2 and words[-1] in NUMBER_WORDS


def _bare_numbers(question: str, years: list[str]) -> list[str]:
    """The question's numbers that may be a thing's number: not one of its ``years``, a time, a
    count or a limit."""
    return list(dict.fromkeys(
        m.group(1) for m in _BARE_NUMBER.finditer(question)
        if m.group(1) not in years and _BEFORE_COUNT.search(question, 0, m.start()) is None
        and _AFTER_COUNT.match(question, m.end()) is None
    ))


def _is_date_table(name: str) -> bool:
    return _DATE_TABLE.search(_joined_words(name)) is not None


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _deletions(word: str) -> list[str]:
    return [word[:i] + word[i + 1:] for i in range(len(word))]


@dataclass
class ValueMatch:
    """A span of the question found among a column's values."""

    span: str
    value: str
    table: int  # position in the schema
    column: int  # position within the table
    exact: bool
    #: how much the match counts: 1 for a value found, less for most hints
    weight: float = 1.0
    #: not a value found but a kind of column the question points to (a year, a trade word, a place)
    hint: bool = False

    def to_dict(self, schema: "Schema") -> dict[str, object]:
        t = schema.tables[self.table]
        return {"span": self.span, "value": self.value, "table": t.id, "column": t.columns[self.column].name,
                "exact": self.exact, "hint": self.hint}


@dataclass
class ValueIndex:
    """Distinct text sample values -> the columns that hold them (see the module docstring)."""

    exact: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    original: dict[str, str] = field(default_factory=dict)
    # the deletion neighbourhood of the values of 5+ characters, as two arrays (a dict of lists
    # took 3 kB a value): the hash of each one-letter deletion, sorted, and its value's position
    # in ``fuzzy_keys``
    fuzzy_keys: list[str] = field(default_factory=list)
    fuzzy_hashes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    fuzzy_values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    date_tables: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    date_columns: dict[int, int] = field(default_factory=dict)  # table -> its year column, else its first date
    date_names: dict[int, list[tuple[int, tuple[str, ...]]]] = field(default_factory=dict)  # table -> (date column, its words)
    date_dimensions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per date table
    date_clocks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per date table: a time of day (TIME)
    measure_columns: dict[int, int] = field(default_factory=dict)  # table -> its first amount/quantity column
    measure_words: dict[int, frozenset[str]] = field(default_factory=dict)  # table -> its name's words
    place_columns: dict[int, list[int]] = field(default_factory=dict)  # table -> its city/state/country columns
    number_columns: dict[int, int] = field(default_factory=dict)  # table -> its first column named as a number
    address_tables: set[int] = field(default_factory=set)  # tables with a place column named an address

    @classmethod
    def from_schema(cls, schema: "Schema", tables: "np.ndarray | None" = None) -> "ValueIndex":
        """The values of ``schema``'s tables at positions ``tables`` (default: every table)."""
        idx = cls()
        dates, dimensions, clocks = [], [], []
        raw: dict[str, list[tuple[int, int]]] = {}
        positions = range(len(schema.tables)) if tables is None else [int(i) for i in tables]
        for ti in positions:
            t = schema.tables[ti]
            year = next((ci for ci, c in enumerate(t.columns) if _is_year_column(c.name)), None)
            for ci, c in enumerate(t.columns):
                if ti not in idx.measure_columns and _is_measure_column(c.name):
                    idx.measure_columns[ti] = ci
                    idx.measure_words[ti] = _table_words(t.name)
                if ti not in idx.number_columns and _is_number_column(c.name):
                    idx.number_columns[ti] = ci
                if _is_place_column(c.name):
                    if ti not in idx.place_columns and ADDRESS_WORDS.intersection(_table_words(t.name)):
                        idx.address_tables.add(ti)
                    idx.place_columns.setdefault(ti, []).append(ci)
                is_date = _is_date_column(c.type, c.name)
                if is_date:
                    idx.date_names.setdefault(ti, []).append((ci, tuple(w for w in name_words(c.name, glued=True) if w not in _DATE_WORDS)))
                if is_date and ti not in idx.date_columns:
                    idx.date_columns[ti] = ci if year is None else year  # a year column where there is one
                    dates.append(ti)
                    clocks.append(year is None and _CLOCK_TYPE.match(c.type or "") is not None)
                    # a date dimension: named so, with a year or a typed date (a time-of-day table has neither)
                    dimensions.append(_is_date_table(t.name) and (year is not None or _DATE_TYPE.search(c.type or "") is not None))
                if not c.sample:
                    continue
                for v in c.sample:
                    if isinstance(v, str):
                        raw.setdefault(v, []).append((ti, ci))
        for v, cols in raw.items():  # each distinct raw value normalized once
            key = _norm(v)
            if not (MIN_CHARS <= len(key) <= MAX_CHARS) or key in _STOP or _NUMBER.match(key):
                continue
            have = idx.exact.get(key)
            idx.exact[key] = cols if have is None else list(dict.fromkeys(have + cols))
            idx.original.setdefault(key, v.strip())
        idx.fuzzy_keys = [key for key in idx.exact if len(key) >= 5]
        lengths = np.fromiter((len(k) for k in idx.fuzzy_keys), dtype=np.int64, count=len(idx.fuzzy_keys))
        hashes = np.fromiter((hash(d) for k in idx.fuzzy_keys for d in _deletions(k)), dtype=np.int64,
                             count=int(lengths.sum()))
        order = np.argsort(hashes, kind="stable")
        idx.fuzzy_hashes = hashes[order]
        idx.fuzzy_values = np.repeat(np.arange(len(idx.fuzzy_keys), dtype=np.int32), lengths)[order]
        idx.date_tables = np.array(dates, dtype=np.int64)
        idx.date_dimensions = np.array(dimensions, dtype=bool)
        idx.date_clocks = np.array(clocks, dtype=bool)
        return idx

    def __len__(self) -> int:
        return len(self.exact)

    def one_deletion_from(self, *texts: str) -> list[str]:
        """The indexed values (5+ characters) that lose one letter to become one of ``texts``
        (one vectorized lookup for all of them)."""
        if not texts or not len(self.fuzzy_hashes):
            return []
        hashes = np.fromiter((hash(t) for t in texts), dtype=np.int64, count=len(texts))
        lo = np.searchsorted(self.fuzzy_hashes, hashes, side="left").tolist()
        hi = np.searchsorted(self.fuzzy_hashes, hashes, side="right").tolist()
        found: dict[str, None] = {}
        for text, a, b in zip(texts, lo, hi):
            for i in self.fuzzy_values[a:b].tolist():  # usually none; a hash may collide, so check
                key = self.fuzzy_keys[i]
                if len(key) == len(text) + 1 and text in _deletions(key):
                    found[key] = None
        return sorted(found)


def _named_dates(index: ValueIndex, table: int, asked: list[str]) -> list[int]:
    """The date columns of ``table`` that a question's word names (``hired`` -> ``HireDate``, not
    ``BirthDate``; ``ordered`` -> ``order_date``)."""
    return [ci for ci, name in index.date_names.get(table, ())
            if any(w[:_STEM] == a[:_STEM] for w in name if len(w) >= _STEM for a in asked)]


def _year_columns(index: ValueIndex, tables: list[int], asked: list[str], traded: set[int]) -> dict[int, int]:
    """Where a year goes among ``tables`` (dated tables, no date dimension among them): the dates a
    question's word names ('ordered in 1997' -> ``orders.order_date``, not ``employees.birth_date``);
    else the dates of the tables that measure the question's trade (``traded``: 'sales in 2013' ->
    ``SalesOrderHeader.OrderDate``, not ``Product.SellStartDate``); else each table's year column
    or first date."""
    named = {ti: cols[0] for ti in tables if (cols := _named_dates(index, ti, asked))}
    if named:
        return named
    measured = {ti: index.date_columns[ti] for ti in tables if ti in traded}
    return measured or {ti: index.date_columns[ti] for ti in tables}


def _spans(question: str, max_words: int = 4) -> list[str]:
    words = _TOKEN.findall(question)
    out = [m.group(1) for m in _QUOTED.finditer(question)]
    for n in range(max_words, 0, -1):
        for i in range(len(words) - n + 1):
            span = " ".join(words[i : i + n]).strip(".'")
            low = _norm(span)
            if n == 1 and (low in _STOP or len(low) < MIN_CHARS):
                continue
            out.append(span)
    return list(dict.fromkeys(out))


def match_values(
    index: ValueIndex, question: str, allowed: np.ndarray | None = None, hinted: np.ndarray | None = None,
) -> list[ValueMatch]:
    """The question's spans found among the indexed values (exact first, then within one edit).

    A longer span wins over the words inside it; ``allowed`` (a table mask) filters the tables,
    and ``hinted`` (default ``allowed``) those of the hints (a year, a time asked, a trade word, a place, a number).
    """
    matches: list[ValueMatch] = []
    covered: list[str] = []
    if hinted is None:
        hinted = allowed
    for span in _spans(question):
        key = _norm(span)
        if any(key in c for c in covered):
            continue  # "iron" inside an already matched "iron maiden"
        hits: list[tuple[str, bool]] = []
        if key in index.exact:
            hits = [(key, True)]
        elif len(key) >= 5 and span[:1].isupper():  # fuzzy for names only: "Iron Maidan", not "authors"
            dels = _deletions(key)
            # a letter missing in the question, a letter changed, a letter too many
            cands = set(index.one_deletion_from(key, *dels))
            cands.update(d for d in dels if d in index.exact)
            hits = [(c, False) for c in sorted(cands) if abs(len(c) - len(key)) <= 1]
        found = [
            ValueMatch(span, index.original.get(value, value), ti, ci, exact)
            for value, exact in hits for ti, ci in index.exact[value] if allowed is None or allowed[ti]
        ]
        if found and len({m.table for m in found}) <= MAX_TABLES:
            matches.extend(found)
        if hits:
            covered.append(key)
    traded: set[int] = set()  # the tables that measure the question's trade
    trade = _TRADE.search(question) if MEASURE_WEIGHT > 0 else None
    if trade:  # one hint, however many trade words
        word = trade.group(1).lower()
        noun = TRADE_NOUNS.get(word)
        usable = [(ti, ci) for ti, ci in index.measure_columns.items() if hinted is None or hinted[ti]]
        named = [(ti, ci) for ti, ci in usable if noun in index.measure_words[ti]]
        for ti, ci in named or usable:  # the tables the trade names (SalesOrderDetail for "sales"), else all
            matches.append(ValueMatch(word, word, ti, ci, False, weight=MEASURE_WEIGHT, hint=True))
            traded.add(ti)
    place = _RESIDENCE.search(question) if PLACE_WEIGHT > 0 else None
    where = place.group("place") if place else ""
    key = _norm(where)
    if place and not any(key in c or c in key for c in covered):
        # a place no value names: the candidates' place columns, if in few tables; each of a
        # table's (Texas may be a city, a state or a country: no value says which)
        cols = [(ti, cis) for ti, cis in index.place_columns.items() if hinted is None or hinted[ti]]
        if len(cols) > MAX_TABLES and place.group("dwell"):
            # a place in every store, warehouse and site: where people live is an address (a store
            # located in Texas is not)
            cols = [(ti, cis) for ti, cis in cols if ti in index.address_tables]
        if len(cols) <= MAX_TABLES:  # a place in every store, warehouse and customer tells nothing
            matches.extend(ValueMatch(where, where, ti, ci, False, weight=PLACE_WEIGHT, hint=True)
                           for ti, cis in cols for ci in cis)
    found_years = list(dict.fromkeys(_YEAR.findall(question)))
    numbers = _bare_numbers(question, found_years) if NUMBER_WEIGHT > 0 else []
    if numbers:
        cols = [(ti, ci) for ti, ci in index.number_columns.items() if hinted is None or hinted[ti]]
        if len(cols) <= MAX_TABLES:  # a number in every table's number column tells nothing
            matches.extend(ValueMatch(n, n, ti, ci, False, weight=NUMBER_WEIGHT, hint=True)
                           for n in numbers for ti, ci in cols)
    years = found_years if YEAR_WEIGHT > 0 else []
    when = _WHEN.search(question) if TIME_WEIGHT > 0 and not years else None
    if years or when:
        tables = index.date_tables
        ok = np.ones(len(tables), dtype=bool) if hinted is None else hinted[tables]
        asked = [w.lower() for w in _TOKEN.findall(question) if len(w) >= _STEM]
    if when:  # a question asking when: the dates, where few tables have one
        word = when.group(1).lower()
        dated = ok if word in _ANY_TIME else ok & ~index.date_clocks  # how recently: a date, not a class's start time
        if 0 < dated.sum() <= MAX_TABLES:
            matches.extend(ValueMatch(word, word, ti, ci, False, weight=TIME_WEIGHT, hint=True)
                           for ti, ci in _year_columns(index, tables[dated].tolist(), asked, traded).items())
    if years:
        if (ok & index.date_dimensions).any():  # a date dimension answers a year; its referrers do not
            weight = DIMENSION_YEAR_WEIGHT
            columns = {ti: (_named_dates(index, ti, asked) or [index.date_columns[ti]])[0]
                       for ti in tables[ok & index.date_dimensions].tolist()}
        else:
            weight = YEAR_WEIGHT
            columns = _year_columns(index, tables[ok].tolist(), asked, traded)
        for year in years:
            matches.extend(ValueMatch(year, year, ti, ci, False, weight=weight, hint=True) for ti, ci in columns.items())
    return matches


def value_candidates(
    index: ValueIndex, question: str, usable: np.ndarray, near: np.ndarray, candidates: np.ndarray,
) -> tuple[list[ValueMatch], np.ndarray]:
    """The question's values found in the ``usable`` tables at positions ``near`` (the databases
    of the strongest candidates: value evidence is local), hints (a year, a time asked, a trade word, a place, a number)
    among the ``candidates`` only; and the candidates with the tables of the values found added."""
    in_near = np.zeros(len(usable), dtype=bool)
    in_near[near] = True
    in_cands = np.zeros(len(usable), dtype=bool)
    in_cands[candidates] = True
    matches = match_values(index, question, usable & in_near, usable & in_near & in_cands)
    extra = [m.table for m in matches if not in_cands[m.table]]
    if extra:
        candidates = np.concatenate([candidates, np.array(list(dict.fromkeys(extra)), dtype=np.int64)])
    return matches, candidates


#: This stage's state: per schema index, the value indexes of the last 64 sets of databases asked.
_KEPT: "weakref.WeakKeyDictionary[SchemaIndex, dict[tuple[str, ...], ValueIndex]]" = weakref.WeakKeyDictionary()


def value_index(index: "SchemaIndex", key: tuple[str, ...], tables: np.ndarray) -> ValueIndex:
    """The :class:`ValueIndex` of the tables at ``tables`` of ``index`` (the databases ``key``),
    built on first use and kept with the index for the last 64 such sets."""
    cache = _KEPT.setdefault(index, {})
    vi = cache.get(key)
    if vi is None:
        if len(cache) >= 64:
            cache.pop(next(iter(cache)))
        vi = cache[key] = ValueIndex.from_schema(index.schema, tables=tables)
    return vi
