"""A plain reviewer login does a reviewer's whole command-line day on a team store: import,
replay, report. Deny-by-default must not deny the product's own operations (a reviewer's
replay used to fail: result ids were moved past with ``setval``, which logins may not call)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.cli import main
from core.store.engine import open_store
from core.store.replay_repo import ReplayRepository
from core.team.roles import add_reviewer


def _as(url: str, login: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{login}@", parts.path, parts.query, ""))


def test_a_reviewer_imports_replays_twice_and_reports(pg_server: Any, demo_corpus: Path) -> None:
    url = pg_server.new_database()
    add_reviewer(url, "ana")
    ana = _as(url, "ana")
    try:
        assert main(["import", str(demo_corpus), "--store", ana]) == 0
        assert main(["replay", "--store", ana, "--no-semantic"]) == 0
        assert main(["replay", "--store", ana, "--no-semantic"]) == 0  # ids drawn again, no collision
        assert main(["report", "--store", ana, "--md"]) == 0
        store = open_store(url)
        try:
            runs = ReplayRepository(store).runs()
            first, second = (ReplayRepository(store).results(r.id) for r in runs[:2])
        finally:
            store.close()
        assert [(r.status, r.started_by) for r in runs] == [("complete", "ana")] * 2
        assert len(first) == len(second) > 0 and not {r.id for r in first} & {r.id for r in second}
    finally:
        pg_server.drop(url)
