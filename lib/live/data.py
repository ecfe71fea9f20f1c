"""The scenarios' data: a small SQLite database each run creates for itself.

Money is stored as text ("3860.00") and read back as Decimal: a float column would bring back the
binary rounding the Hengxin tools exist to avoid.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

HENGXIN = """
CREATE TABLE employees (user_id TEXT PRIMARY KEY, name TEXT, job_level TEXT);
CREATE TABLE expenses (expense_id TEXT PRIMARY KEY, user_id TEXT, amount TEXT, status TEXT, submit_date TEXT);
CREATE TABLE travel_policy (job_level TEXT, city_tier TEXT, hotel_limit TEXT, meal_limit TEXT,
                            PRIMARY KEY (job_level, city_tier));
CREATE TABLE supplements (supplement_id TEXT PRIMARY KEY, expense_id TEXT, user_id TEXT, over_amount TEXT,
                          reason TEXT, status TEXT, created_at TEXT);
INSERT INTO employees VALUES ('E10238', 'Lin Wei', 'P6'), ('E10311', 'Zhou Min', 'P7');
INSERT INTO expenses VALUES
  ('BX-20260921-0417', 'E10238', '2140.00', 'paid', '2026-09-21'),
  ('BX-20261015-0932', 'E10238', '3860.00', 'submitted', '2026-10-15'),
  ('BX-20261016-0101', 'E10311', '5120.00', 'submitted', '2026-10-16');
INSERT INTO travel_policy VALUES
  ('P6', '1', '3600.00', '700.00'), ('P6', '2', '3200.00', '600.00'), ('P6', '3', '2600.00', '500.00'),
  ('P6', 'other', '2200.00', '450.00'), ('P7', '1', '4200.00', '800.00'), ('P7', '2', '3800.00', '700.00'),
  ('P7', '3', '3100.00', '600.00'), ('P7', 'other', '2600.00', '500.00');
"""
"""Employees, their expense forms, the travel standard by job level and city tier, supplements filed."""

LARKFIELD = """
CREATE TABLE orders (order_id TEXT PRIMARY KEY, customer_id TEXT, status TEXT, ordered_on TEXT, shipped_on TEXT,
                     delivered_on TEXT, items TEXT, total_cad TEXT);
INSERT INTO orders VALUES
  ('LK-581106', 'C-81265', 'shipped', '2026-10-01', '2026-10-05', NULL,
   '[{"name": "Garden shed", "quantity": 1}]', '749.00'),
  ('LK-615204', 'C-38852', 'delivered', '2026-09-12', '2026-09-14', '2026-09-18',
   '[{"name": "Patio chair", "quantity": 4}]', '316.00'),
  ('LK-590017', 'C-81265', 'delivered', '2026-08-03', '2026-08-04', '2026-08-07',
   '[{"name": "Doormat", "quantity": 1}]', '24.50');
"""
"""Larkfield's orders; each belongs to one customer."""

ORDER_STATUS = """
CREATE TABLE orders (order_id TEXT PRIMARY KEY, email TEXT, status TEXT, delivery_estimate TEXT);
INSERT INTO orders VALUES
  ('A-48213', 'sam.ortiz@example.com', 'shipped', '2026-03-14'),
  ('A-48219', 'sam.ortiz@example.com', 'processing', '2026-03-18'),
  ('A-47702', 'kim.lee@example.com', 'delivered', '2026-02-27');
"""
"""The online shop's orders, by customer email."""


@dataclass(frozen=True)
class Database:
    """A scenario's SQLite file. Each tool call opens its own connection (Streamlit reruns hop threads)."""

    path: Path
    """Where the file is."""

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed."""
        connection = sqlite3.connect(self.path)
        connection.row_factory = sqlite3.Row
        try:
            with connection:
                yield connection
        finally:
            connection.close()


def create_database(path: Path, script: str) -> Database:
    """A fresh database at `path` built by `script` (an existing file is replaced)."""
    path.unlink(missing_ok=True)
    database = Database(path)
    with database.connect() as connection:
        connection.executescript(script)
    return database
