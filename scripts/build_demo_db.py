#!/usr/bin/env python3
"""Build the bundled demo database ``jar_core/data/demo.sqlite``.

The demo database models *Inkwell Books*, a small online bookstore: books with their
authors (and translators), categories and publishers, customers placing orders handled
by staff members and delivered by shippers, and customer reviews.  It has 13 tables with
declared foreign keys, three junction (many-to-many) tables -- ``book_authors``,
``book_categories`` and ``order_items`` -- and about 700 rows.

The build is deterministic: the output file is deleted first, every row is inserted in a
fixed order and all "random" values come from ``random.Random(SEED)``, so two runs give
the same ``iterdump()`` output.  Only the standard library is used.

Usage::

    python scripts/build_demo_db.py [--out PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sqlite3
import sys
from pathlib import Path

SEED = 20240611
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "jar_core" / "data" / "demo.sqlite"

# --------------------------------------------------------------------------- schema

SCHEMA = """
CREATE TABLE countries (
    country_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    iso_code TEXT NOT NULL UNIQUE,
    continent TEXT NOT NULL
);

CREATE TABLE publishers (
    publisher_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    country_id INTEGER NOT NULL,
    founded_year INTEGER,
    FOREIGN KEY (country_id) REFERENCES countries (country_id)
);

CREATE TABLE authors (
    author_id INTEGER PRIMARY KEY,
    full_name TEXT NOT NULL,
    birth_year INTEGER,
    death_year INTEGER,
    birthplace INTEGER,
    FOREIGN KEY (birthplace) REFERENCES countries (country_id)
);

CREATE TABLE categories (
    category_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT
);

CREATE TABLE books (
    book_id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    isbn13 TEXT NOT NULL UNIQUE,
    publisher_id INTEGER NOT NULL,
    first_published INTEGER,
    edition_date DATE,
    format TEXT NOT NULL,
    page_count INTEGER,
    list_price REAL NOT NULL,
    FOREIGN KEY (publisher_id) REFERENCES publishers (publisher_id)
);

CREATE TABLE book_authors (
    book_id INTEGER NOT NULL,
    author_id INTEGER NOT NULL,
    contribution TEXT NOT NULL,
    credit_order INTEGER NOT NULL,
    PRIMARY KEY (book_id, author_id),
    FOREIGN KEY (book_id) REFERENCES books (book_id),
    FOREIGN KEY (author_id) REFERENCES authors (author_id)
);

CREATE TABLE book_categories (
    book_id INTEGER NOT NULL,
    category_id INTEGER NOT NULL,
    PRIMARY KEY (book_id, category_id),
    FOREIGN KEY (book_id) REFERENCES books (book_id),
    FOREIGN KEY (category_id) REFERENCES categories (category_id)
);

CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    country_id INTEGER NOT NULL,
    joined_on DATE NOT NULL,
    loyalty_tier TEXT NOT NULL,
    FOREIGN KEY (country_id) REFERENCES countries (country_id)
);

CREATE TABLE employees (
    employee_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    job_title TEXT NOT NULL,
    hire_date DATE NOT NULL,
    reports_to INTEGER,
    FOREIGN KEY (reports_to) REFERENCES employees (employee_id)
);

CREATE TABLE shippers (
    shipper_id INTEGER PRIMARY KEY,
    company_name TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL
);

CREATE TABLE orders (
    order_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL,
    handled_by INTEGER NOT NULL,
    shipper_id INTEGER,
    order_date DATE NOT NULL,
    shipped_date DATE,
    status TEXT NOT NULL,
    ship_city TEXT NOT NULL,
    freight REAL NOT NULL,
    FOREIGN KEY (customer_id) REFERENCES customers (customer_id),
    FOREIGN KEY (handled_by) REFERENCES employees (employee_id),
    FOREIGN KEY (shipper_id) REFERENCES shippers (shipper_id)
);

CREATE TABLE order_items (
    order_id INTEGER NOT NULL,
    book_id INTEGER NOT NULL,
    quantity INTEGER NOT NULL,
    unit_price REAL NOT NULL,
    discount REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (order_id, book_id),
    FOREIGN KEY (order_id) REFERENCES orders (order_id),
    FOREIGN KEY (book_id) REFERENCES books (book_id)
);

CREATE TABLE reviews (
    review_id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL,
    customer_id INTEGER NOT NULL,
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    headline TEXT NOT NULL,
    reviewed_on DATE NOT NULL,
    FOREIGN KEY (book_id) REFERENCES books (book_id),
    FOREIGN KEY (customer_id) REFERENCES customers (customer_id)
);
"""

# --------------------------------------------------------------------------- fixed data

# (name, ISO 3166 alpha-2, continent)
COUNTRIES = [
    ("United Kingdom", "GB", "Europe"),
    ("Ireland", "IE", "Europe"),
    ("United States", "US", "North America"),
    ("Canada", "CA", "North America"),
    ("France", "FR", "Europe"),
    ("Germany", "DE", "Europe"),
    ("Czech Republic", "CZ", "Europe"),
    ("Russia", "RU", "Europe"),
    ("Sweden", "SE", "Europe"),
    ("Spain", "ES", "Europe"),
    ("Italy", "IT", "Europe"),
    ("Netherlands", "NL", "Europe"),
    ("Colombia", "CO", "South America"),
    ("Japan", "JP", "Asia"),
    ("India", "IN", "Asia"),
    ("Israel", "IL", "Asia"),
    ("Australia", "AU", "Oceania"),
]
COUNTRY_ID = {name: i for i, (name, _, _) in enumerate(COUNTRIES, start=1)}

# (name, city, country, founded) -- fictional imprints
PUBLISHERS = [
    ("Harbour Lane Press", "London", "United Kingdom", 1921),
    ("Quill & Lantern", "Edinburgh", "United Kingdom", 1888),
    ("Liffey Books", "Dublin", "Ireland", 1962),
    ("Meridian House", "New York", "United States", 1946),
    ("Silverpine Publishing", "Boston", "United States", 1959),
    ("Northlight Editions", "Toronto", "Canada", 1974),
    ("Rive Gauche Classics", "Paris", "France", 1931),
    ("Tidewater Paperbacks", "Seattle", "United States", 1983),
]
PUBLISHER_ID = {name: i for i, (name, _, _, _) in enumerate(PUBLISHERS, start=1)}

# (full name, birth year, death year or None, country of birth)
AUTHORS = [
    ("Agatha Christie", 1890, 1976, "United Kingdom"),
    ("Arthur Conan Doyle", 1859, 1930, "United Kingdom"),
    ("Oscar Wilde", 1854, 1900, "Ireland"),
    ("James Joyce", 1882, 1941, "Ireland"),
    ("Bram Stoker", 1847, 1912, "Ireland"),
    ("Samuel Beckett", 1906, 1989, "Ireland"),
    ("Sally Rooney", 1991, None, "Ireland"),
    ("Jane Austen", 1775, 1817, "United Kingdom"),
    ("Charles Dickens", 1812, 1870, "United Kingdom"),
    ("Mary Shelley", 1797, 1851, "United Kingdom"),
    ("George Orwell", 1903, 1950, "India"),
    ("Terry Pratchett", 1948, 2015, "United Kingdom"),
    ("Neil Gaiman", 1960, None, "United Kingdom"),
    ("Stephen King", 1947, None, "United States"),
    ("Peter Straub", 1943, 2022, "United States"),
    ("Ursula K. Le Guin", 1929, 2018, "United States"),
    ("Isaac Asimov", 1920, 1992, "Russia"),
    ("Frank Herbert", 1920, 1986, "United States"),
    ("Mark Twain", 1835, 1910, "United States"),
    ("Ernest Hemingway", 1899, 1961, "United States"),
    ("F. Scott Fitzgerald", 1896, 1940, "United States"),
    ("Gabriel García Márquez", 1927, 2014, "Colombia"),
    ("Gregory Rabassa", 1922, 2016, "United States"),
    ("Edith Grossman", 1936, 2023, "United States"),
    ("Jules Verne", 1828, 1905, "France"),
    ("Alexandre Dumas", 1802, 1870, "France"),
    ("Victor Hugo", 1802, 1885, "France"),
    ("Thomas Mann", 1875, 1955, "Germany"),
    ("Franz Kafka", 1883, 1924, "Czech Republic"),
    ("Hermann Hesse", 1877, 1962, "Germany"),
    ("Haruki Murakami", 1949, None, "Japan"),
    ("Jay Rubin", 1941, None, "United States"),
    ("Leo Tolstoy", 1828, 1910, "Russia"),
    ("Fyodor Dostoevsky", 1821, 1881, "Russia"),
    ("Constance Garnett", 1861, 1946, "United Kingdom"),
    ("Margaret Atwood", 1939, None, "Canada"),
    ("Astrid Lindgren", 1907, 2002, "Sweden"),
    ("Stieg Larsson", 1954, 2004, "Sweden"),
    ("Carl Sagan", 1934, 1996, "United States"),
    ("Stephen Hawking", 1942, 2018, "United Kingdom"),
    ("Leonard Mlodinow", 1954, None, "United States"),
    ("Yuval Noah Harari", 1976, None, "Israel"),
]
AUTHOR_ID = {name: i for i, (name, _, _, _) in enumerate(AUTHORS, start=1)}

CATEGORIES = [
    ("Classics", "Enduring works of literature still widely read today."),
    ("Literary Fiction", "Character-driven novels and short stories."),
    ("Mystery & Crime", "Detectives, whodunits and crime thrillers."),
    ("Horror", "Gothic tales, ghosts and supernatural terror."),
    ("Science Fiction", "Futures, space travel, robots and dystopias."),
    ("Fantasy", "Magic, myth and invented worlds."),
    ("Romance", "Love stories and relationships."),
    ("Historical Fiction", "Novels set against real historical events."),
    ("Humour", "Comic novels and satire."),
    ("Drama & Poetry", "Plays and verse."),
    ("Children's Books", "Stories for young readers."),
    ("Popular Science", "Science explained for the general reader."),
    ("History", "Non-fiction accounts of the human past."),
]
CATEGORY_ID = {name: i for i, (name, _) in enumerate(CATEGORIES, start=1)}

A, TR = "Author", "Translator"

# (title, first published, publisher, format, pages, [(author, contribution)], [categories])
BOOKS = [
    ("Murder on the Orient Express", 1934, "Harbour Lane Press", "Paperback", 256,
     [("Agatha Christie", A)], ["Mystery & Crime", "Classics"]),
    ("And Then There Were None", 1939, "Harbour Lane Press", "Paperback", 272,
     [("Agatha Christie", A)], ["Mystery & Crime"]),
    ("The Murder of Roger Ackroyd", 1926, "Harbour Lane Press", "Hardcover", 288,
     [("Agatha Christie", A)], ["Mystery & Crime"]),
    ("The Hound of the Baskervilles", 1902, "Quill & Lantern", "Paperback", 224,
     [("Arthur Conan Doyle", A)], ["Mystery & Crime", "Classics"]),
    ("A Study in Scarlet", 1887, "Quill & Lantern", "Paperback", 176,
     [("Arthur Conan Doyle", A)], ["Mystery & Crime"]),
    ("The Picture of Dorian Gray", 1890, "Liffey Books", "Paperback", 272,
     [("Oscar Wilde", A)], ["Classics", "Horror"]),
    ("The Importance of Being Earnest", 1895, "Liffey Books", "Paperback", 96,
     [("Oscar Wilde", A)], ["Drama & Poetry", "Humour"]),
    ("Dubliners", 1914, "Liffey Books", "Paperback", 208,
     [("James Joyce", A)], ["Classics", "Literary Fiction"]),
    ("Ulysses", 1922, "Liffey Books", "Hardcover", 736,
     [("James Joyce", A)], ["Classics", "Literary Fiction"]),
    ("Dracula", 1897, "Quill & Lantern", "Paperback", 448,
     [("Bram Stoker", A)], ["Horror", "Classics"]),
    ("Waiting for Godot", 1953, "Liffey Books", "Paperback", 112,
     [("Samuel Beckett", A)], ["Drama & Poetry"]),
    ("Normal People", 2018, "Harbour Lane Press", "Hardcover", 288,
     [("Sally Rooney", A)], ["Literary Fiction", "Romance"]),
    ("Conversations with Friends", 2017, "Harbour Lane Press", "Paperback", 320,
     [("Sally Rooney", A)], ["Literary Fiction"]),
    ("Pride and Prejudice", 1813, "Quill & Lantern", "Paperback", 432,
     [("Jane Austen", A)], ["Classics", "Romance"]),
    ("Emma", 1815, "Quill & Lantern", "E-book", 474,
     [("Jane Austen", A)], ["Classics", "Romance"]),
    ("Great Expectations", 1861, "Quill & Lantern", "Paperback", 544,
     [("Charles Dickens", A)], ["Classics"]),
    ("A Tale of Two Cities", 1859, "Quill & Lantern", "Hardcover", 489,
     [("Charles Dickens", A)], ["Classics", "Historical Fiction"]),
    ("Frankenstein", 1818, "Harbour Lane Press", "Paperback", 280,
     [("Mary Shelley", A)], ["Horror", "Science Fiction", "Classics"]),
    ("Nineteen Eighty-Four", 1949, "Harbour Lane Press", "Paperback", 328,
     [("George Orwell", A)], ["Science Fiction", "Classics"]),
    ("Animal Farm", 1945, "Harbour Lane Press", "Paperback", 112,
     [("George Orwell", A)], ["Classics", "Humour"]),
    ("Good Omens", 1990, "Tidewater Paperbacks", "Paperback", 412,
     [("Terry Pratchett", A), ("Neil Gaiman", A)], ["Fantasy", "Humour"]),
    ("Guards! Guards!", 1989, "Tidewater Paperbacks", "Paperback", 416,
     [("Terry Pratchett", A)], ["Fantasy", "Humour"]),
    ("American Gods", 2001, "Meridian House", "Hardcover", 635,
     [("Neil Gaiman", A)], ["Fantasy"]),
    ("The Shining", 1977, "Meridian House", "Paperback", 497,
     [("Stephen King", A)], ["Horror"]),
    ("The Talisman", 1984, "Meridian House", "Paperback", 770,
     [("Stephen King", A), ("Peter Straub", A)], ["Fantasy", "Horror"]),
    ("Ghost Story", 1979, "Meridian House", "Paperback", 567,
     [("Peter Straub", A)], ["Horror"]),
    ("A Wizard of Earthsea", 1968, "Silverpine Publishing", "Paperback", 183,
     [("Ursula K. Le Guin", A)], ["Fantasy", "Children's Books"]),
    ("The Left Hand of Darkness", 1969, "Silverpine Publishing", "Paperback", 304,
     [("Ursula K. Le Guin", A)], ["Science Fiction"]),
    ("Foundation", 1951, "Silverpine Publishing", "Paperback", 255,
     [("Isaac Asimov", A)], ["Science Fiction"]),
    ("I, Robot", 1950, "Silverpine Publishing", "E-book", 253,
     [("Isaac Asimov", A)], ["Science Fiction"]),
    ("Dune", 1965, "Silverpine Publishing", "Hardcover", 617,
     [("Frank Herbert", A)], ["Science Fiction"]),
    ("Adventures of Huckleberry Finn", 1884, "Tidewater Paperbacks", "Paperback", 366,
     [("Mark Twain", A)], ["Classics", "Children's Books"]),
    ("The Old Man and the Sea", 1952, "Meridian House", "Paperback", 127,
     [("Ernest Hemingway", A)], ["Classics", "Literary Fiction"]),
    ("The Great Gatsby", 1925, "Meridian House", "Paperback", 180,
     [("F. Scott Fitzgerald", A)], ["Classics", "Literary Fiction"]),
    ("One Hundred Years of Solitude", 1967, "Meridian House", "Paperback", 417,
     [("Gabriel García Márquez", A), ("Gregory Rabassa", TR)], ["Literary Fiction", "Classics"]),
    ("Love in the Time of Cholera", 1985, "Meridian House", "Hardcover", 348,
     [("Gabriel García Márquez", A), ("Edith Grossman", TR)], ["Literary Fiction", "Romance"]),
    ("Twenty Thousand Leagues Under the Seas", 1870, "Rive Gauche Classics", "Paperback", 432,
     [("Jules Verne", A)], ["Science Fiction", "Classics"]),
    ("The Count of Monte Cristo", 1844, "Rive Gauche Classics", "Hardcover", 1276,
     [("Alexandre Dumas", A)], ["Historical Fiction", "Classics"]),
    ("Les Misérables", 1862, "Rive Gauche Classics", "Hardcover", 1463,
     [("Victor Hugo", A)], ["Historical Fiction", "Classics"]),
    ("The Magic Mountain", 1924, "Rive Gauche Classics", "Paperback", 720,
     [("Thomas Mann", A)], ["Literary Fiction", "Classics"]),
    ("The Trial", 1925, "Rive Gauche Classics", "Paperback", 256,
     [("Franz Kafka", A)], ["Classics", "Literary Fiction"]),
    ("Siddhartha", 1922, "Rive Gauche Classics", "E-book", 152,
     [("Hermann Hesse", A)], ["Literary Fiction"]),
    ("Norwegian Wood", 1987, "Harbour Lane Press", "Paperback", 296,
     [("Haruki Murakami", A), ("Jay Rubin", TR)], ["Literary Fiction", "Romance"]),
    ("Kafka on the Shore", 2002, "Harbour Lane Press", "Paperback", 505,
     [("Haruki Murakami", A)], ["Literary Fiction", "Fantasy"]),
    ("War and Peace", 1869, "Quill & Lantern", "Hardcover", 1392,
     [("Leo Tolstoy", A), ("Constance Garnett", TR)], ["Historical Fiction", "Classics"]),
    ("Crime and Punishment", 1866, "Quill & Lantern", "Paperback", 576,
     [("Fyodor Dostoevsky", A), ("Constance Garnett", TR)], ["Classics", "Mystery & Crime"]),
    ("The Handmaid's Tale", 1985, "Northlight Editions", "Paperback", 311,
     [("Margaret Atwood", A)], ["Science Fiction", "Literary Fiction"]),
    ("Alias Grace", 1996, "Northlight Editions", "Hardcover", 470,
     [("Margaret Atwood", A)], ["Historical Fiction", "Mystery & Crime"]),
    ("Pippi Longstocking", 1945, "Tidewater Paperbacks", "Hardcover", 160,
     [("Astrid Lindgren", A)], ["Children's Books", "Humour"]),
    ("The Girl with the Dragon Tattoo", 2005, "Northlight Editions", "Paperback", 465,
     [("Stieg Larsson", A)], ["Mystery & Crime"]),
    ("Cosmos", 1980, "Silverpine Publishing", "Paperback", 396,
     [("Carl Sagan", A)], ["Popular Science"]),
    ("A Brief History of Time", 1988, "Harbour Lane Press", "Paperback", 212,
     [("Stephen Hawking", A)], ["Popular Science"]),
    ("The Grand Design", 2010, "Harbour Lane Press", "Hardcover", 208,
     [("Stephen Hawking", A), ("Leonard Mlodinow", A)], ["Popular Science"]),
    ("Sapiens: A Brief History of Humankind", 2011, "Northlight Editions", "Paperback", 464,
     [("Yuval Noah Harari", A)], ["History", "Popular Science"]),
    ("Homo Deus: A Brief History of Tomorrow", 2015, "Northlight Editions", "Hardcover", 448,
     [("Yuval Noah Harari", A)], ["History", "Popular Science"]),
]

# city -> country, with typical first and last names per country
CUSTOMER_PLACES = [
    ("London", "United Kingdom"), ("Manchester", "United Kingdom"), ("Bristol", "United Kingdom"),
    ("Dublin", "Ireland"), ("Cork", "Ireland"),
    ("New York", "United States"), ("Chicago", "United States"), ("Austin", "United States"),
    ("Portland", "United States"),
    ("Toronto", "Canada"), ("Montreal", "Canada"),
    ("Paris", "France"), ("Lyon", "France"),
    ("Berlin", "Germany"), ("Munich", "Germany"), ("Hamburg", "Germany"),
    ("Madrid", "Spain"), ("Barcelona", "Spain"),
    ("Milan", "Italy"), ("Rome", "Italy"),
    ("Amsterdam", "Netherlands"), ("Utrecht", "Netherlands"),
    ("Stockholm", "Sweden"),
    ("Sydney", "Australia"), ("Melbourne", "Australia"),
]
NAMES = {
    "United Kingdom": (["Oliver", "Amelia", "Harry", "Isla", "George", "Charlotte", "Emily"],
                       ["Smith", "Taylor", "Clarke", "Hughes", "Wright", "Walker"]),
    "Ireland": (["Aoife", "Sean", "Niamh", "Conor", "Siobhan"],
                ["Murphy", "Kelly", "O'Brien", "Walsh", "Byrne"]),
    "United States": (["James", "Olivia", "Michael", "Emma", "Daniel", "Sophia", "Ethan"],
                      ["Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis"]),
    "Canada": (["Liam", "Chloe", "Noah", "Camille"], ["Tremblay", "Roy", "Campbell", "Martin"]),
    "France": (["Louis", "Chloé", "Hugo", "Léa", "Camille"],
               ["Dubois", "Lefebvre", "Moreau", "Laurent", "Girard"]),
    "Germany": (["Lukas", "Anna", "Felix", "Lena", "Jonas", "Marie"],
                ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Becker"]),
    "Spain": (["Lucía", "Pablo", "Carmen", "Javier"],
              ["García", "Fernández", "López", "Martínez"]),
    "Italy": (["Giulia", "Marco", "Francesca", "Luca"], ["Rossi", "Russo", "Ferrari", "Esposito"]),
    "Netherlands": (["Daan", "Sanne", "Bram", "Femke"],
                    ["de Jong", "Jansen", "de Vries", "Bakker"]),
    "Sweden": (["Erik", "Astrid", "Oskar", "Ingrid"],
               ["Andersson", "Johansson", "Karlsson", "Nilsson"]),
    "Australia": (["Jack", "Matilda", "Cooper", "Ruby"], ["Wilson", "Thompson", "Kelly", "Ryan"]),
}
LOYALTY_TIERS = ["Bronze", "Bronze", "Bronze", "Silver", "Silver", "Gold"]

# (first, last, job title, hire date, reports_to as 1-based index or None)
EMPLOYEES = [
    ("Margaret", "Holloway", "Managing Director", "2014-03-03", None),
    ("Daniel", "Okafor", "Head of Customer Service", "2015-06-15", 1),
    ("Priya", "Raman", "Operations Manager", "2016-01-11", 1),
    ("Tom", "Fletcher", "Customer Service Agent", "2018-09-03", 2),
    ("Sofia", "Marchetti", "Customer Service Agent", "2019-04-23", 2),
    ("Kenji", "Watanabe", "Fulfilment Coordinator", "2020-02-17", 3),
    ("Hannah", "Lindqvist", "Customer Service Agent", "2021-07-05", 2),
    ("Mateo", "Alvarez", "Fulfilment Coordinator", "2022-10-10", 3),
]

SHIPPERS = [
    ("Royal Parcel Express", "+44 20 7946 0321"),
    ("Atlantic Courier Co.", "+1 212 555 0148"),
    ("EuroSwift Logistics", "+49 30 5557 2210"),
    ("Kangaroo Freight", "+61 2 5550 1187"),
]

ORDER_STATUSES = ["Delivered"] * 7 + ["Shipped"] * 2 + ["Returned"]
HEADLINES = {
    5: ["An absolute masterpiece", "Could not put it down", "A book I will reread for years",
        "Beautifully written and unforgettable", "Worth every penny"],
    4: ["Gripping and clever", "A very enjoyable read", "Great story, slow start",
        "Lovely edition of a classic"],
    3: ["Good but overlong", "Decent, not the author's best", "Some wonderful passages"],
    2: ["Struggled to finish it", "Not what I expected"],
    1: ["Arrived damaged", "Not for me at all"],
}

N_CUSTOMERS = 40
N_ORDERS = 100
N_REVIEWS = 45


# --------------------------------------------------------------------------- helpers


def isbn13(rng: random.Random) -> str:
    """A random but checksum-valid ISBN-13 in the 978 range."""
    digits = [9, 7, 8] + [rng.randrange(10) for _ in range(9)]
    total = sum(d * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits))
    digits.append((10 - total % 10) % 10)
    return "".join(map(str, digits))


def random_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    """A uniformly drawn date between ``start`` and ``end`` inclusive."""
    return start + dt.timedelta(days=rng.randrange((end - start).days + 1))


def ascii_fold(text: str) -> str:
    """Lowercase ``text`` with accents and apostrophes removed, for e-mail addresses."""
    table = str.maketrans("éèáíóúüöäñç", "eeaiouuoanc")
    return text.lower().translate(table).replace("'", "").replace(" ", "")


# --------------------------------------------------------------------------- build


def build(out: Path) -> dict[str, int]:
    """(Re)create the demo database at ``out``; return the row count of every table."""
    rng = random.Random(SEED)
    out.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(str(out) + suffix).unlink(missing_ok=True)

    con = sqlite3.connect(out)
    try:
        con.execute("PRAGMA foreign_keys = ON")
        con.executescript(SCHEMA)

        con.executemany(
            "INSERT INTO countries VALUES (?, ?, ?, ?)",
            [(i, *row) for i, row in enumerate(COUNTRIES, start=1)],
        )
        con.executemany(
            "INSERT INTO publishers VALUES (?, ?, ?, ?, ?)",
            [
                (i, name, city, COUNTRY_ID[country], founded)
                for i, (name, city, country, founded) in enumerate(PUBLISHERS, start=1)
            ],
        )
        con.executemany(
            "INSERT INTO authors VALUES (?, ?, ?, ?, ?)",
            [
                (i, name, born, died, COUNTRY_ID[country])
                for i, (name, born, died, country) in enumerate(AUTHORS, start=1)
            ],
        )
        con.executemany(
            "INSERT INTO categories VALUES (?, ?, ?)",
            [(i, *row) for i, row in enumerate(CATEGORIES, start=1)],
        )

        book_rows, book_author_rows, book_category_rows = [], [], []
        prices: dict[int, float] = {}
        for book_id, (title, first, publisher, fmt, pages, credits, cats) in enumerate(
            BOOKS, start=1
        ):
            edition = random_date(rng, dt.date(max(first, 2005), 1, 1), dt.date(2023, 12, 31))
            base = {"Paperback": 8.99, "Hardcover": 18.99, "E-book": 5.99}[fmt]
            price = round(base + pages / 100 + rng.choice([0.0, 1.0, 2.0, 3.0]), 2)
            prices[book_id] = price
            book_rows.append(
                (book_id, title, isbn13(rng), PUBLISHER_ID[publisher], first,
                 edition.isoformat(), fmt, pages, price)
            )
            for order, (author, role) in enumerate(credits, start=1):
                book_author_rows.append((book_id, AUTHOR_ID[author], role, order))
            for cat in cats:
                book_category_rows.append((book_id, CATEGORY_ID[cat]))
        con.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", book_rows)
        con.executemany("INSERT INTO book_authors VALUES (?, ?, ?, ?)", book_author_rows)
        con.executemany("INSERT INTO book_categories VALUES (?, ?)", book_category_rows)

        customer_rows, emails = [], set()
        customer_city: dict[int, str] = {}
        customer_joined: dict[int, dt.date] = {}
        for customer_id in range(1, N_CUSTOMERS + 1):
            city, country = CUSTOMER_PLACES[(customer_id - 1) % len(CUSTOMER_PLACES)]
            firsts, lasts = NAMES[country]
            first, last = rng.choice(firsts), rng.choice(lasts)
            email = f"{ascii_fold(first)}.{ascii_fold(last)}@example.com"
            n = 2
            while email in emails:
                email = f"{ascii_fold(first)}.{ascii_fold(last)}{n}@example.com"
                n += 1
            emails.add(email)
            joined = random_date(rng, dt.date(2019, 1, 1), dt.date(2023, 6, 30))
            customer_city[customer_id] = city
            customer_joined[customer_id] = joined
            customer_rows.append(
                (customer_id, first, last, email, city, COUNTRY_ID[country],
                 joined.isoformat(), rng.choice(LOYALTY_TIERS))
            )
        con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)", customer_rows)

        con.executemany(
            "INSERT INTO employees VALUES (?, ?, ?, ?, ?, ?)",
            [(i, *row) for i, row in enumerate(EMPLOYEES, start=1)],
        )
        con.executemany(
            "INSERT INTO shippers VALUES (?, ?, ?)",
            [(i, *row) for i, row in enumerate(SHIPPERS, start=1)],
        )

        agents = [i for i, e in enumerate(EMPLOYEES, start=1) if "Agent" in e[2]] + [2]
        order_rows, item_rows = [], []
        purchases: list[tuple[int, int, dt.date]] = []  # (customer, book, delivered on)
        for order_id in range(1, N_ORDERS + 1):
            customer_id = rng.randrange(1, N_CUSTOMERS + 1)
            ordered = random_date(
                rng, max(customer_joined[customer_id], dt.date(2023, 1, 1)), dt.date(2024, 5, 31)
            )
            status = rng.choice(ORDER_STATUSES)
            if ordered > dt.date(2024, 5, 20):
                status = rng.choice(["Pending", "Processing"])
            shipped = None
            shipper = None
            if status not in ("Pending", "Processing"):
                shipped = (ordered + dt.timedelta(days=rng.randrange(1, 5))).isoformat()
                country = customer_rows[customer_id - 1][5]
                if country == COUNTRY_ID["Australia"]:
                    shipper = 4
                elif country in (COUNTRY_ID["United States"], COUNTRY_ID["Canada"]):
                    shipper = 2
                elif country in (COUNTRY_ID["United Kingdom"], COUNTRY_ID["Ireland"]):
                    shipper = 1
                else:
                    shipper = 3
            books = sorted(rng.sample(range(1, len(BOOKS) + 1), rng.choice([1, 1, 2, 2, 3, 4])))
            subtotal = 0.0
            for book_id in books:
                qty = rng.choice([1, 1, 1, 1, 2, 3])
                discount = rng.choice([0.0, 0.0, 0.0, 0.05, 0.1, 0.15])
                item_rows.append((order_id, book_id, qty, prices[book_id], discount))
                subtotal += qty * prices[book_id] * (1 - discount)
                if status in ("Delivered", "Shipped"):
                    purchases.append((customer_id, book_id, ordered))
            freight = round(3.5 + 0.02 * subtotal + rng.choice([0.0, 1.25, 2.5]), 2)
            order_rows.append(
                (order_id, customer_id, rng.choice(agents), shipper, ordered.isoformat(),
                 shipped, status, customer_city[customer_id], freight)
            )
        con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", order_rows)
        con.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)", item_rows)

        # Reviews only for books a customer actually bought, at most one per pair.
        seen: set[tuple[int, int]] = set()
        unique_purchases = []
        for customer_id, book_id, ordered in purchases:
            if (customer_id, book_id) not in seen:
                seen.add((customer_id, book_id))
                unique_purchases.append((customer_id, book_id, ordered))
        review_rows = []
        picked = sorted(rng.sample(range(len(unique_purchases)), N_REVIEWS))
        for review_id, idx in enumerate(picked, start=1):
            customer_id, book_id, ordered = unique_purchases[idx]
            rating = rng.choice([5, 5, 5, 4, 4, 4, 3, 3, 2, 1])
            reviewed = ordered + dt.timedelta(days=rng.randrange(7, 60))
            review_rows.append(
                (review_id, book_id, customer_id, rating, rng.choice(HEADLINES[rating]),
                 reviewed.isoformat())
            )
        con.executemany("INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?)", review_rows)

        con.commit()
        problems = con.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise RuntimeError(f"foreign key violations: {problems}")
        tables = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
            )
        ]
        counts = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
        con.execute("VACUUM")
    finally:
        con.close()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the jar_core demo SQLite database.")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output file (default: {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)
    counts = build(args.out)
    for table, n in counts.items():
        print(f"{table:16s} {n:4d}")
    print(f"{'total':16s} {sum(counts.values()):4d}  -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
