"""Shared test fixtures.

The shared CauterRule corpus lives at ``../shared/corpora/cauterule`` relative to the
project root. A user's fresh clone has no ``../shared``: tests that need it skip with a
clear reason, unless ``CAUTERULE_SHARED_CORPUS=required`` (set by ``.ci/run``), in which
case its absence is a failure.
"""

from __future__ import annotations

import importlib.abc
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


class _BlockQt(importlib.abc.MetaPathFinder):
    """Makes PySide6 and the GUI package unimportable, to prove the core does not need them."""

    blocked = frozenset({"PySide6", "shiboken6", "cauterule_gui", "pytestqt"})

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in self.blocked:
            raise ImportError(f"{name} is blocked: core tests run without Qt (WORKBENCH_BLOCK_QT=1)")
        return None


if os.environ.get("WORKBENCH_BLOCK_QT") == "1":
    sys.meta_path.insert(0, _BlockQt())

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "cauterule"
DEMO_CORPUS = PROJECT_ROOT / "corpora" / "demo"


@pytest.fixture(autouse=True)
def _hermetic_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may touch the user's real data, config or settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """Path to the shared CauterRule corpus; skip (or fail in CI) when it is absent."""
    if SHARED_CORPUS.is_dir():
        return SHARED_CORPUS
    message = f"shared CauterRule corpus not found at {SHARED_CORPUS}"
    if os.environ.get("CAUTERULE_SHARED_CORPUS") == "required":
        pytest.fail(message + " (CAUTERULE_SHARED_CORPUS=required)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def demo_corpus() -> Path:
    return DEMO_CORPUS


# -- PostgreSQL: a throwaway cluster for the run, a fresh database per test ----------------------
# Unix socket in a temporary folder, no TCP (core.team.cluster). Where no server can be started
# the PostgreSQL cases skip with one line, unless WORKBENCH_PG=required (set by .ci/run), where
# that is a failure. WORKBENCH_PG_URL names an existing server's maintenance database instead.
BACKENDS = ("sqlite", "postgresql")
_PG_TEMPLATE = f"workbench_template_{os.getpid()}"  # one per test run: runs may share a server


class PostgresServer:
    """The test run's server: fresh databases made from a template already at the newest schema."""

    def __init__(self, url: str, cluster: object | None) -> None:
        self.url = url
        self.cluster = cluster
        self._count = 0

    def _admin(self):  # type: ignore[no-untyped-def]
        import psycopg

        return psycopg.connect(self.url, autocommit=True)

    def database_url(self, name: str) -> str:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.url)
        return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))

    def prepare_template(self) -> None:
        from core.store.engine import open_store

        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{_PG_TEMPLATE}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{_PG_TEMPLATE}"')
        open_store(self.database_url(_PG_TEMPLATE)).close()

    def new_database(self) -> str:
        """A new database holding an empty store at the newest schema; returns its URL."""
        self._count += 1
        name = f"wb_{os.getpid()}_{self._count}"
        with self._admin() as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{_PG_TEMPLATE}"')
        return self.database_url(name)

    def empty_database(self) -> str:
        self._count += 1
        name = f"wb_{os.getpid()}_{self._count}"
        with self._admin() as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def drop(self, url: str) -> None:
        from urllib.parse import urlsplit

        name = urlsplit(url).path.lstrip("/")
        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_PG_SKIPPED: list[str] = []  # why the PostgreSQL cases skipped (reported once, at the end)


def _pg_unavailable(reason: str) -> None:
    message = f"PostgreSQL tests skipped: {reason}"
    if os.environ.get("WORKBENCH_PG") == "required":
        pytest.fail(message + " (WORKBENCH_PG=required)")
    _PG_SKIPPED.append(message)
    pytest.skip(message)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for all the PostgreSQL cases that could not run, whatever their number."""
    if _PG_SKIPPED:
        terminalreporter.write_line(_PG_SKIPPED[0])


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole run (started here unless WORKBENCH_PG_URL names one)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _pg_unavailable("psycopg is not installed")
    from core.team.cluster import ClusterUnavailable, start_cluster

    cluster = None
    url = os.environ.get("WORKBENCH_PG_URL")
    if not url:
        root = Path(tempfile.mkdtemp(prefix="wbpg-", dir="/tmp"))  # short: a socket path has a length limit
        try:
            cluster = start_cluster(root)
        except ClusterUnavailable as error:
            shutil.rmtree(root, ignore_errors=True)
            _pg_unavailable(str(error))
        url = cluster.url()
    server = PostgresServer(url, cluster)
    server.prepare_template()
    yield server
    server.drop(server.database_url(_PG_TEMPLATE))
    if cluster is not None:
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Which back end a store test runs on (every such test runs on both)."""
    return str(request.param)


@pytest.fixture()
def store_location(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path | str]:
    """Where a test's new store lives: a file (SQLite) or a new database on the test server."""
    if backend == "sqlite":
        yield tmp_path / "store.sqlite"
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    url = server.new_database()
    yield url
    server.drop(url)
