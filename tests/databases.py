"""Fixtures for the notes store: a real SQLite file, and a real PostgreSQL server.

Import the fixtures a test module uses (`from tests.databases import database_url, store`).
PostgreSQL comes from `ROUNDTRIP_TEST_POSTGRES_URL`, else the role `.ci/run` creates on
127.0.0.1:5432. When no server answers, its tests skip, except under CI (`CI` set), where they
fail: CI installs and starts one, so a missing server there is a broken build.
"""

from __future__ import annotations

import os
import uuid
from typing import Iterator

import pytest
import sqlalchemy as sa

from lib.store import Store, open_store

POSTGRES_URL = os.environ.get("ROUNDTRIP_TEST_POSTGRES_URL") \
    or "postgresql+psycopg://roundtrip:roundtrip@127.0.0.1:5432/roundtrip_test"
"""The server and database the PostgreSQL tests use."""


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    """A fresh SQLite file, not created yet."""
    return f"sqlite:///{tmp_path / 'notes.db'}"


@pytest.fixture
def app_database(tmp_path, monkeypatch) -> str:
    """The app's database for this test: a fresh SQLite file named by ROUNDTRIP_DATABASE_URL, as a deployment names
    one, and the laptop's author name set once, as its user would (ROUNDTRIP_AUTHOR)."""
    url = f"sqlite:///{tmp_path / 'roundtrip.db'}"
    monkeypatch.setenv("ROUNDTRIP_DATABASE_URL", url)
    monkeypatch.setenv("ROUNDTRIP_AUTHOR", "Ada")
    return url


@pytest.fixture
def postgres_url():
    """A fresh schema on the PostgreSQL server, dropped afterwards, as a URL whose search path is it."""
    yield from postgres_schema()


def postgres_schema() -> Iterator[str]:
    """A fresh schema's URL until resumed, then the schema dropped; skips (fails under CI) when no server answers."""
    engine = sa.create_engine(POSTGRES_URL, connect_args={"connect_timeout": 3})
    schema = f"test_{uuid.uuid4().hex[:12]}"
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except sa.exc.OperationalError as exc:
        engine.dispose()
        message = f"no PostgreSQL server at {sa.make_url(POSTGRES_URL).render_as_string()}: {exc.orig}"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests, but there is {message}")
        pytest.skip(message)
    url = sa.make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request) -> str:
    """Each real database in turn: an SQLite file, then a PostgreSQL schema."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def store(database_url):
    """A store on a fresh database of each kind, at the current schema version."""
    opened = open_store(database_url)
    yield opened
    opened.close()


def wipe(store: Store) -> None:
    """Drop every table, the version table included: the database as if new."""
    found = sa.MetaData()
    found.reflect(store.engine)
    found.drop_all(store.engine)
