"""Does replay need a child process? The GUI thread's worst stall, in-process vs the child.

The same replay (the shared CauterRule corpus, every ``expected_rule`` made a candidate,
workbench profile, lexical and semantic) runs as a job in the ``JobRunner``'s CPU pool,
either in the pool thread itself (``run_replay`` in this process) or through the replay
child (``jobs/replay_job.py``). Meanwhile a 10 ms ``QTimer`` on the GUI thread records the
gaps between its ticks: the worst gap is the longest the window could not react. Semantic
runs start from a copy of the store with an empty embedding cache, so every run embeds.

Cases: the machine's noise floor (no replay: one CPU-bound process beside the idle
heartbeat); the child (lexical; semantic with its model already loaded; semantic in a
fresh child that loads the model); in-process (lexical before any model is in this
process; semantic loading the model in the job; semantic with the model already loaded;
lexical with the model loaded). Each case runs ``--repeat`` times; the worst is printed.

    PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python benchmarks/gui_stall.py [--repeat 3]

The decision rule (issue 16): keep the child only if in-process stalls exceed 50 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication

from cauterule_gui.jobs import JobContext, JobRunner
from cauterule_gui.jobs.replay_job import ReplayProcess, ReplayRequest, start_model_load, start_replay

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "cauterule"
BUDGET_MS = 50.0


class Heartbeat:
    """A 10 ms timer on the GUI thread; the longest gap between ticks is the worst stall."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.gaps: list[float] = []

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self.last)
        self.last = now

    def stop(self) -> None:
        self.timer.stop()
        self._tick()


def wait_for(handle: Any, seconds: float = 600.0) -> Any:
    loop = QEventLoop()
    handle.finished.connect(loop.quit)
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    if handle.running:
        loop.exec()
    if handle.outcome != "result":
        raise RuntimeError(f"{handle.name} ended {handle.outcome}: {handle.value}")
    return handle.value


def measured(start: Callable[[], Any]) -> tuple[float, float, int, float]:
    """(worst gap ms, p99 gap ms, gaps over the budget, seconds) of one job."""
    beat = Heartbeat()
    beat.start()
    t0 = time.perf_counter()
    wait_for(start())
    seconds = time.perf_counter() - t0
    beat.stop()
    gaps = sorted(g * 1000 for g in beat.gaps)
    p99 = gaps[int(0.99 * (len(gaps) - 1))]
    return gaps[-1], p99, sum(g > BUDGET_MS for g in gaps), seconds


def build_store(folder: Path, corpus: Path) -> Path:
    from core.importing import import_paths
    from core.replaying import materialise_expected_rules
    from core.store.engine import open_store

    path = folder / "base.sqlite"
    store = open_store(path)
    try:
        import_paths(store, [corpus])
        materialise_expected_rules(store)
    finally:
        store.close()
    return path


def fresh_copy(base: Path, folder: Path, n: list[int]) -> Path:
    """A copy with an empty embedding cache: every semantic run embeds every text."""
    n[0] += 1
    path = folder / f"run{n[0]}.sqlite"
    shutil.copy(base, path)
    return path


def in_process_job(path: Path, semantic: bool, model: list[Any]) -> Callable[[JobContext], Any]:
    def run(ctx: JobContext) -> Any:
        from core.embeddings import CachedEmbedder
        from core.replay.profiles import WORKBENCH
        from core.replaying import make_embedder, run_replay
        from core.store.embedding_repo import EmbeddingCacheRepository
        from core.store.engine import open_store

        store = open_store(path)
        try:
            embedder = None
            if semantic:
                if not model:
                    loaded, why = make_embedder(store)
                    if loaded is None:
                        raise RuntimeError(f"no embedding model: {why}")
                    model.append(loaded.embedder)
                embedder = CachedEmbedder(model[0], EmbeddingCacheRepository(store))
            return run_replay(store, WORKBENCH.with_(semantic=semantic), embedder=embedder, cancel=ctx.cancel_event,
                              progress=lambda d, t: ctx.progress(d, t, "pairs"),
                              texts_progress=lambda d, t: ctx.progress(d, t, "texts"))
        finally:
            store.close()

    return run


def noise_floor(seconds: float) -> tuple[float, float, int, float]:
    spin = subprocess.Popen([sys.executable, "-c",
                             f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass"])
    beat = Heartbeat()
    beat.start()
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    beat.stop()
    spin.wait(30)
    gaps = sorted(g * 1000 for g in beat.gaps)
    return gaps[-1], gaps[int(0.99 * (len(gaps) - 1))], sum(g > BUDGET_MS for g in gaps), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SHARED)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(["gui_stall"])
    runner = JobRunner()
    rows: list[tuple[str, list[tuple[float, float, int, float]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = build_store(folder, args.corpus)
        n = [0]

        def case(name: str, start: Callable[[], Any]) -> None:
            results = [measured(start) for _ in range(args.repeat)]
            rows.append((name, results))
            worst = max(r[0] for r in results)
            print(f"  {name:<52} worst {worst:7.1f} ms", flush=True)

        def child_replay(process: ReplayProcess, semantic: bool) -> Any:
            request = ReplayRequest("bench", "workbench", semantic).with_scope()
            return start_replay(runner, fresh_copy(base, folder, n), request, process)

        print(f"corpus {args.corpus}, {args.repeat} runs per case", flush=True)
        warm = ReplayProcess()
        wait_for(start_model_load(runner, warm))  # a warm child with its model, as the app keeps one
        case("child: lexical", lambda: child_replay(warm, False))
        case("child: semantic, model loaded", lambda: child_replay(warm, True))

        def fresh_child_semantic() -> Any:
            process = ReplayProcess(keep_idle=0)  # a new child for each run: it loads the model
            return child_replay(process, True)

        case("child: semantic, child starts and loads the model", fresh_child_semantic)
        warm.stop()
        model: list[Any] = []
        case("in-process: lexical, no model in the process",
             lambda: runner.submit(in_process_job(fresh_copy(base, folder, n), False, model), name="lexical"))

        def cold_semantic() -> Any:
            model.clear()  # the job loads the model (the first time also imports torch)
            return runner.submit(in_process_job(fresh_copy(base, folder, n), True, model), name="semantic cold")

        case("in-process: semantic, the job loads the model", cold_semantic)
        case("in-process: semantic, model loaded",
             lambda: runner.submit(in_process_job(fresh_copy(base, folder, n), True, model), name="semantic warm"))
        case("in-process: lexical, model loaded",
             lambda: runner.submit(in_process_job(fresh_copy(base, folder, n), False, model), name="lexical"))
        longest = max(r[3] for _name, results in rows for r in results)
        floor = noise_floor(max(2.0, longest))
        rows.append(("noise floor: no replay, one CPU-bound process", [floor]))
    print()
    print(f"{'case':<52} {'worst ms':>9} {'median worst':>13} {'p99 ms':>7} {'gaps>50ms':>10} {'run s':>6}")
    for name, results in rows:
        worst = max(r[0] for r in results)
        print(f"{name:<52} {worst:9.1f} {statistics.median(r[0] for r in results):13.1f} "
              f"{max(r[1] for r in results):7.1f} {max(r[2] for r in results):10d} "
              f"{statistics.median(r[3] for r in results):6.2f}")
    runner.shutdown()
    QCoreApplication.processEvents()
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
