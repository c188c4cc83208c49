"""Cancel drill at scale: how long a cancelled replay takes to return, wherever the cancel lands.

    PYTHONPATH=. python benchmarks/cancel_drill.py --workdir /work/scale-data/replay-100k \
        [--delays 2 10 30 60] [--semantic]

Uses the store a ``scale.py`` run imported (``WORKDIR/store.sqlite``). For each delay a lexical
replay of every rule starts in a worker thread; the cancel is set after the delay (so it lands
while loading, hashing or indexing the trajectories, or between chunks) and the time from the
cancel to ``run_replay`` returning is printed, with the run's stored status. ``--semantic`` also
cancels a cold semantic run once the model has embedded its first batch (the embedding cache
entries it wrote stay: they are valid vectors). Exit code 0 only if every cancel returned within
2 s, every run is stored as cancelled, and the latest complete run is the one there was before.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.replay.profiles import WORKBENCH  # noqa: E402
from core.replaying import ReplayRunSummary, make_embedder, run_replay  # noqa: E402
from core.store.engine import Store, open_store  # noqa: E402
from core.store.replay_repo import ReplayRepository  # noqa: E402

LIMIT_SECONDS = 2.0


def _drill(store: Store, label: str, start_cancel: Any, **kwargs: Any) -> bool:
    """Run replay in a thread; ``start_cancel(event, progress)`` sets the event when it wants."""
    cancel = threading.Event()
    done: list[ReplayRunSummary] = []
    pairs = [0, 0]  # pairs scored, texts embedded

    def work() -> None:
        done.append(run_replay(store, include_expected_rules=False, cancel=cancel, scope="cancel-drill",
                               progress=lambda d, _t: pairs.__setitem__(0, d),
                               texts_progress=lambda d, _t: pairs.__setitem__(1, d), **kwargs))

    before = ReplayRepository(store).latest_complete_run()
    worker = threading.Thread(target=work, daemon=True)
    started = time.perf_counter()
    worker.start()
    start_cancel(cancel, pairs)
    asked = time.perf_counter()
    worker.join()
    returned = time.perf_counter() - asked
    summary = done[0]
    run = ReplayRepository(store).get_run(summary.run_id)
    after = ReplayRepository(store).latest_complete_run()
    phase = ("between chunks" if pairs[0] else "embedding" if pairs[1] else "loading / hashing / indexing")
    ok = (returned <= LIMIT_SECONDS and run is not None and run.status == "cancelled"
          and (after.id if after else None) == (before.id if before else None))
    print(f"  {label:<34} cancel at {asked - started:6.1f} s ({phase}; {pairs[0]:,} pairs, {pairs[1]:,} texts): "
          f"returned in {returned:.2f} s; stored status {run.status if run else None}; "
          f"latest complete run unchanged: {(after.id if after else None) == (before.id if before else None)}"
          f"  {'OK' if ok else 'FAIL'}", flush=True)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--delays", type=float, nargs="*", default=[2.0, 10.0, 30.0, 60.0])
    ap.add_argument("--semantic", action="store_true")
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    store = open_store(args.workdir / "store.sqlite")
    ok = True
    print(f"cancel drill on {args.workdir / 'store.sqlite'}", flush=True)
    lexical = WORKBENCH.with_(semantic=False)
    for delay in args.delays:
        def after_delay(cancel: threading.Event, _progress: list[int], delay: float = delay) -> None:
            time.sleep(delay)
            cancel.set()
        ok &= _drill(store, f"lexical, cancel after {delay:g} s", after_delay, profile=lexical)
    if args.semantic:
        embedder, why = make_embedder(store)
        if embedder is None:
            print(f"  semantic: unavailable ({why})")
        else:
            def first_batch(cancel: threading.Event, progress: list[int]) -> None:
                give_up = time.perf_counter() + 900  # texts all cached: cancel anyway
                while progress[1] == 0 and time.perf_counter() < give_up:
                    time.sleep(0.05)
                cancel.set()
            ok &= _drill(store, "semantic cold, during embedding", first_batch, profile=WORKBENCH, embedder=embedder)
    store.close()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
