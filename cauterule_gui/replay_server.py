"""The replay process: runs ``core.replaying.run_replay`` outside the window's process.

Replay is CPU-heavy Python plus numpy / scipy calls that hold the GIL for tens of
milliseconds at a time; in a thread of the window's process that starves the GUI thread
(measured: 200–500 ms stalls on a busy two-core machine). So the job the window starts
(``jobs/replay_job.py``, still a QThreadPool job with progress, results and cancel) hands
the work to this long-lived child process and only relays its messages. The child writes
the results to the store itself, inside ``run_replay``, each chunk one short transaction
(SQLite serialises writers; WAL keeps the window's reads unblocked), and keeps the loaded
embedding model between runs.

Protocol: JSON lines. In (stdin): ``{"op": "replay", ...}``, ``{"op": "cancel"}``,
``{"op": "load_model", "store": path}``, ``{"op": "quit"}``. Out (stdout): ``progress``
(``unit`` ``texts`` while a cold semantic run embeds, then ``pairs``), ``results``, ``model``,
``done``, ``error`` messages. No Qt here.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
import traceback
from typing import Any, TextIO

PROGRESS_INTERVAL_S = 0.1


class _Out:
    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, **message: Any) -> None:
        line = json.dumps(message, default=str)
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()


class _Model:
    """The embedding model, loaded at most once in this process."""

    def __init__(self) -> None:
        self.model: Any = None
        self.why: str | None = None

    def embedder(self, store: Any, out: _Out) -> tuple[Any, str | None]:
        from core.embeddings import CachedEmbedder
        from core.replaying import make_embedder
        from core.store.embedding_repo import EmbeddingCacheRepository

        if self.model is None and self.why is None:
            out.send(type="model", state="loading")
            embedder, why = make_embedder(store)
            if embedder is None:
                self.why = why or "no embedding model"
            else:
                self.model = embedder.embedder
        if self.model is None:
            out.send(type="model", state="unavailable", info=self.why)
            return None, self.why
        out.send(type="model", state="ready", info=self.model.model_id)
        return CachedEmbedder(self.model, EmbeddingCacheRepository(store)), None


def _replay(request: dict[str, Any], cancel: Any, model: _Model, out: _Out) -> None:
    from core.replay.profiles import profile_by_name
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store

    store = open_store(request["store"])
    try:
        profile = profile_by_name(request["profile"])
        profile = profile.with_(semantic=profile.semantic and bool(request.get("semantic", True)))
        if request.get("materialise"):
            materialise_expected_rules(store)
        embedder, why = model.embedder(store, out) if profile.semantic else (None, None)
        last = [0.0]

        def reporter(unit: str) -> Any:
            def progress(done: int, total: int) -> None:
                now = time.monotonic()
                if now - last[0] >= PROGRESS_INTERVAL_S or (total and done >= total) or done == 0:
                    last[0] = now
                    out.send(type="progress", unit=unit, done=int(done), total=int(total))
            return progress

        rule_ids = request.get("rule_ids")
        summary = run_replay(
            store, profile, rule_ids=rule_ids, include_expected_rules=True, embedder=embedder, semantic_note=why,
            progress=reporter("pairs"), cancel=cancel,
            on_results=lambda results: out.send(type="results", n=len(results)),
            scope=request.get("scope"), texts_progress=reporter("texts"),
        )
        out.send(type="done", run_id=summary.run_id, status=summary.status, rules=len(summary.results),
                 pairs=summary.pairs, seconds=summary.seconds, semantic_state=summary.semantic_state,
                 semantic_note=summary.semantic_note, model_id=summary.model_id)
    finally:
        store.close()


class _Cancel:
    """The cancel token of the request being served: set by a ``cancel`` naming its id."""

    def __init__(self) -> None:
        self.current: Any = None
        self.cancelled: set[Any] = set()

    def is_set(self) -> bool:
        return self.current is not None and self.current in self.cancelled

    def set(self) -> None:
        self.cancelled.add(self.current)


def serve(stdin: TextIO, out: _Out) -> None:
    requests: queue.Queue[dict[str, Any] | None] = queue.Queue()
    cancel = _Cancel()

    def read() -> None:
        for line in stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("op") == "cancel":
                cancel.cancelled.add(message.get("id"))
            else:
                requests.put(message)
        requests.put(None)  # the window closed our stdin: quit

    threading.Thread(target=read, daemon=True).start()
    model = _Model()
    while True:
        request = requests.get()
        if request is None or request.get("op") == "quit":
            return
        cancel.current = request.get("id")
        try:
            if request.get("op") == "load_model":
                from core.store.engine import open_store

                store = open_store(request["store"])
                try:
                    model.embedder(store, out)
                finally:
                    store.close()
                out.send(type="done", status="loaded")
            elif request.get("op") == "replay":
                _replay(request, cancel, model, out)
        except BaseException as error:  # noqa: BLE001 - every failure must reach the window
            out.send(type="error", exc_type=type(error).__name__, message=str(error),
                     traceback=traceback.format_exc())


def main() -> None:
    protocol = sys.stdout
    sys.stdout = sys.stderr  # stray prints must never corrupt the protocol
    serve(sys.stdin, _Out(protocol))


if __name__ == "__main__":
    main()
