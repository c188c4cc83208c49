"""Many small files (issue 25 item 6): transactions per import, not per file.

Counted, not timed: a fresh import of 2,000 one-record files and an unchanged re-import each
open a handful of transactions (the old importer opened 3-5 per file), and a failure in the
middle of an import keeps every file either whole with its hash or to be read again.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

import core.importing
from core.importing import import_paths
from core.store.engine import Store, open_store

from benchmarks.many_files import write_many_files

FILES = 2_000


@pytest.fixture()
def store(store_location: Path | str) -> Iterator[Store]:
    opened = open_store(store_location)  # on each back end
    yield opened
    opened.close()


@contextmanager
def counted_transactions(store: Store) -> Iterator[list[str]]:
    """Every transaction begun on the store's engine (read or write) while the block runs."""
    begun: list[str] = []

    def on_begin(connection: Any) -> None:
        begun.append("begin")

    event.listen(store.engine, "begin", on_begin)
    try:
        yield begun
    finally:
        event.remove(store.engine, "begin", on_begin)


def _stored(store: Store) -> int:
    with store.read_session() as session:
        return int(session.execute(text("SELECT count(*) FROM trajectory")).scalar_one())


def test_a_fresh_import_of_many_files_takes_few_transactions(tmp_path: Path, store: Store) -> None:
    write_many_files(tmp_path / "corpus", FILES, folders=4)
    with counted_transactions(store) as begun:
        import_paths(store, [tmp_path / "corpus"])
    assert _stored(store) == FILES
    assert len(begun) <= 40  # the old importer: about 5 per file, 10,000


def test_an_unchanged_reimport_of_many_files_takes_few_transactions(tmp_path: Path, store: Store) -> None:
    write_many_files(tmp_path / "corpus", FILES, folders=4)
    import_paths(store, [tmp_path / "corpus"])
    with counted_transactions(store) as begun:
        again = import_paths(store, [tmp_path / "corpus"])
    assert sum(c.unchanged for c in again.corpora) == FILES
    assert len(begun) <= 30  # the old importer: about 4 per file, 8,000


def test_an_import_failing_between_batches_keeps_whole_files_and_the_next_import_completes(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_many_files(tmp_path / "corpus", FILES, folders=4)
    real_write = core.importing.write_trajectory_files
    written: list[int] = []

    def fail_on_second_batch(target: Store, batch: Any) -> Any:
        if written:
            raise OSError(28, "No space left on device")
        written.append(len(batch))
        return real_write(target, batch)

    monkeypatch.setattr(core.importing, "write_trajectory_files", fail_on_second_batch)
    with pytest.raises(OSError):
        import_paths(store, [tmp_path / "corpus"])
    assert _stored(store) == written[0]  # the first batch is whole, nothing of the second
    monkeypatch.setattr(core.importing, "write_trajectory_files", real_write)
    again = import_paths(store, [tmp_path / "corpus"])
    assert _stored(store) == FILES
    assert sum(c.imported for c in again.corpora) == FILES - written[0]
