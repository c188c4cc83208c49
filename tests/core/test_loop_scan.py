"""The loop's chunked scan: the same answers as the one-shot views, and it stops on cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.importing import import_paths
from core.loop.scan import LoopScanCancelled, scan_loop
from core.loop.views import gate_summaries, injection_pool, trajectory_info
from core.store.engine import Store, open_store

from benchmarks.make_scale_corpus import generate

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture
def demo_store(store_location: Path | str) -> Store:
    opened = open_store(store_location)  # on each back end
    import_paths(opened, [DEMO])
    yield opened  # type: ignore[misc]
    opened.close()


def test_scan_in_small_chunks_matches_the_one_shot_views(demo_store: Store) -> None:
    scan = scan_loop(demo_store, chunk=7)  # several chunks, the last one partial
    assert scan.info == trajectory_info(demo_store)
    expected = {(s.corpus, s.mode): s.to_dict() for s in gate_summaries(demo_store)}
    got = {(s.corpus, s.mode): s.to_dict() for s in scan.summaries}
    for summary in [*expected.values(), *got.values()]:  # the order of disagreements follows the read order
        summary["disagreements"] = sorted(summary["disagreements"], key=lambda d: d["pk"])
    assert got == expected
    assert sorted(scan.pool, key=lambda p: p.pk) == sorted(injection_pool(demo_store), key=lambda p: p.pk)


def test_a_set_cancel_stops_the_scan_before_it_reads(demo_store: Store) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LoopScanCancelled):
        scan_loop(demo_store, cancel)


def test_cancel_mid_scan_of_a_big_store_stops_at_the_next_chunk(tmp_path: Path, shared_corpus: Path) -> None:
    # Counted in chunks, not seconds (a shared machine makes seconds noise); the time from a
    # cancel to the scan returning is a benchmark figure (benchmarks/clock_bounds.py).
    generate(3000, 5, seed=5, out=tmp_path / "corpus", source=shared_corpus)
    store = open_store(tmp_path / "big.sqlite")
    try:
        import_paths(store, [tmp_path / "corpus"])
        cancel = threading.Event()
        seen: list[tuple[int, int]] = []

        def progress(done: int, total: int) -> None:
            seen.append((done, total))
            if len(seen) == 2 and not cancel.is_set():
                cancel.set()

        with pytest.raises(LoopScanCancelled):
            scan_loop(store, cancel, chunk=100, progress=progress)
        assert len(seen) <= 3, f"{len(seen) - 2} chunks were scanned after the cancel"
        assert seen[-1][0] < seen[-1][1] == 3000  # it stopped early, far from the end
    finally:
        store.close()
