"""The trajectory side kept in the store: building it against reading it back, and what keeping
it adds to an import.

    PYTHONPATH=. python benchmarks/side_cache.py [corpus folder] [--repeat N]

Prints, for the corpus (default: the shared CauterRule corpus): the import, and what keeping
the side at its end adds (``importing._keep_trajectory_side``: load, hash, build, encode,
write); the side built in this process the first time (cold: nothing normalised yet, as in a
new process) and the best of N (warm); the blob's size, encoding and reading it back (best of
N); all in CPU seconds, and the ratios.
"""

from __future__ import annotations

import argparse
import gc
import logging
import tempfile
import time
from pathlib import Path

from core import importing
from core.replay import matcher_bridge as mb
from core.replay import side_codec
from core.replay.engine import build_trajectory_side, trajectory_side_key
from core.replay.profiles import REFERENCE_0_3_1
from core.replay.snapshot import corpus_hash
from core.replaying import load_trajectories
from core.store.engine import open_store

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "cauterule"


def _cpu(fn, repeat: int = 1):  # type: ignore[no-untyped-def]
    best, value = float("inf"), None
    for _ in range(repeat):
        c0 = time.process_time()
        value = fn()
        best = min(best, time.process_time() - c0)
    return best, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=SHARED)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    keep = importing._keep_trajectory_side
    matcher = mb.matcher_profile(REFERENCE_0_3_1.matcher, semantic=False)
    with tempfile.TemporaryDirectory() as tmp:
        importing._keep_trajectory_side = lambda store: None  # type: ignore[assignment]
        try:
            store = open_store(Path(tmp) / "store.sqlite")
            bare, _ = _cpu(lambda: importing.import_paths(store, [args.corpus]))
        finally:
            importing._keep_trajectory_side = keep  # type: ignore[assignment]
        trajectories = load_trajectories(store)
        # First in this process: nothing normalised or tokenised yet, as in a new process.
        cold, _ = _cpu(lambda: build_trajectory_side(trajectories, matcher, None, None))
        hook, _ = _cpu(lambda: keep(store))  # what the import adds: load, hash, build, encode, write
        store.close()
    print(f"import of {len(trajectories)} trajectories: {bare:.3f} s CPU; keeping the side at its end adds "
          f"{hook:.3f} s ({hook / bare:.1%})")
    gc.freeze()  # as run_replay does: no full collection of the import's objects inside a timing
    for prune in (None, True):
        key = side_codec.side_key(trajectory_side_key(trajectories, True, prune, corpus_hash(trajectories)))
        warm, side = _cpu(lambda: build_trajectory_side(trajectories, matcher, prune, None), args.repeat)
        enc, blob = _cpu(lambda: side_codec.encode(side, key), args.repeat)
        dec, _ = _cpu(lambda: side_codec.decode(blob, key, trajectories, True), args.repeat)
        label = "word indexes" if prune else "default (no word indexes below 2,000)"
        first = f"{cold * 1e3:.1f} ms CPU first in the process, " if prune is None else ""
        print(f"{label}: blob {len(blob) / 1e3:.0f} KB; build {first}{warm * 1e3:.1f} ms best of {args.repeat}; "
              f"encode {enc * 1e3:.1f} ms; read back {dec * 1e3:.1f} ms best of {args.repeat} "
              f"(1/{warm / dec:.1f} of a warm build{f', 1/{cold / dec:.1f} of a first one' if prune is None else ''})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
