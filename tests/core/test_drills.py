"""The reliability drills of issue 11, bounded to seconds (``benchmarks/drills.py`` runs
them for minutes). Each prints its figures (``pytest -s`` shows them) and asserts the
acceptance: nothing lost, nothing mixed, nothing left running, no crash."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.drills.fuzz import fuzz_import, fuzz_jsonl, fuzz_yaml
from tests.drills.kills import EXPORT_KINDS, export_kill_drill, import_kill_drill, two_writers, writer_beside_replays
from tests.drills.stores import build_store


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("drill-stores")
    built = {}
    for name in ("A", "B"):
        build_store(root / f"{name}.sqlite", root / f"corpus-{name}", name, n=120)
        built[name] = root / f"{name}.sqlite"
    yield built


def test_writers_beside_replays_store_every_action(stores: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "w.sqlite"
    store.write_bytes(stores["A"].read_bytes())
    stored, errors, first = two_writers(store, 40)
    print(f"\ntwo writers × 40: {stored}/80 stored, {errors} errors {first}")
    assert (stored, errors) == (80, 0)
    beside = writer_beside_replays(store, 40, 2)
    print(f"writer beside 2 replays: {beside}")
    assert (beside.stored, beside.errors, beside.replay_failures, beside.left_running) == (40, 0, 0, 0)


@pytest.mark.parametrize("kind", sorted(EXPORT_KINDS))
def test_killed_exports_leave_the_old_or_the_new_export(stores: dict[str, Path], tmp_path: Path, kind: str) -> None:
    drill = export_kill_drill(kind, stores, tmp_path, kills=2)
    print(f"\n{drill}")
    assert drill.mixed == 0 and drill.refused_after == 0 and drill.leftovers == 0, drill.problems


def test_killed_imports_lose_nothing_after_a_reimport(tmp_path: Path) -> None:
    drill = import_kill_drill(tmp_path / "s.sqlite", tmp_path / "corpus", kills=3, n=200)
    print(f"\n{drill}")
    assert drill.complete_after_reimport == drill.kills, drill.problems


def test_fuzzed_readers_and_imports_never_crash(tmp_path: Path) -> None:
    for name, stats in (("jsonl", fuzz_jsonl(150)), ("yaml", fuzz_yaml(150)),
                        ("import", fuzz_import(tmp_path / "f.sqlite", tmp_path, 15))):
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\nfuzz {name}: {stats.examples} examples, {stats.issues} issues, {len(stats.crashes)} crashes, "
              f"slowest {stats.slowest_s:.2f} s, peak {peak_mb:.0f} MB")
        assert stats.crashes == [] and stats.malformed_issues == [] and stats.slowest_s < 10


def test_two_concurrent_exports_into_one_folder_never_mix(stores: dict[str, Path], tmp_path: Path) -> None:
    from tests.drills.concurrent_exports import concurrent_export_drill

    drill = concurrent_export_drill(stores, tmp_path, rounds=4)
    print(f"\n{drill}")
    assert (drill.mixed, drill.locked, drill.raw_errors, drill.failed, drill.leftovers) == (0, 0, 0, 0, 0), \
        drill.problems
