"""The trajectory table's SQL (ids from narrow indexes first, then rows): every sort and the
text filter return what a plain Python sort and filter of all rows return, page by page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.importing import import_paths
from core.store.corpus_repo import CorpusRepository, TrajectoryFilter
from core.store.engine import Store, open_store

KEYS = ("id", "trajectory_id", "corpus", "domain", "success", "failure_class", "expected_rule")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, demo_corpus: Path) -> Iterator[Store]:
    opened = open_store(tmp_path_factory.mktemp("traj") / "s.sqlite")
    import_paths(opened, [demo_corpus])
    yield opened
    opened.close()


def _expected(store: Store, key: str, descending: bool, needle: str) -> list[int]:
    rows = [d for d in CorpusRepository(store).get_trajectories()
            if not needle or any(needle.lower() in (v or "").lower()
                                 for v in (d.trajectory_id, d.task, d.failure_class, d.domain))]
    value = {
        "id": lambda d: d.id, "trajectory_id": lambda d: d.trajectory_id, "corpus": lambda d: d.corpus,
        "domain": lambda d: d.domain, "success": lambda d: d.success, "failure_class": lambda d: d.failure_class,
        "expected_rule": lambda d: d.expected_rule,
    }[key]
    # SQL order: NULLs first ascending (last descending), then the id ascending as the tie-break.
    rows.sort(key=lambda d: d.id)
    present = sorted((d for d in rows if value(d) is not None), key=value, reverse=descending)
    missing = [d for d in rows if value(d) is None]
    return [d.id for d in (present + missing if descending else missing + present)]


@pytest.mark.parametrize("needle", ["", "docker", "DF-", "no such text"])
@pytest.mark.parametrize("key", KEYS)
def test_pages_follow_the_sort_and_the_text_filter(store: Store, key: str, needle: str) -> None:
    repo = CorpusRepository(store)
    flt = TrajectoryFilter(text=needle)
    for descending in (False, True):
        expected = _expected(store, key, descending, needle)
        assert repo.count_trajectories(flt) == len(expected)
        paged: list[int] = []
        for offset in range(0, max(len(expected), 1), 7):
            paged += [s.id for s in repo.list_trajectories(flt, offset, 7, key, descending)]
        assert paged == expected
