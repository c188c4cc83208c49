"""Embeddings for the window's panels, computed by a replay child process.

The window process never loads the embedding model (torch is large and its first load
takes seconds of CPU beside the GUI thread): the promotion queue's semantic similarity,
the label feedback and the metrics dashboard's semantic comparators call a
``RemoteEmbedder``, which sends ``Embed`` requests to a child (``jobs/replay_process.py``)
and returns its vectors. Call it from a pool job (it blocks while the child works). Vectors
already fetched are kept in memory here, so a panel refresh asks only for new texts.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import numpy as np

from core.embeddings import EmbeddingUnavailable
from core.replay.messages import Embed, Embedded, LoadModel, ModelState, ProtocolError

from cauterule_gui.jobs.replay_process import ReplayProcess, shared_process


class RemoteEmbedder:
    """Callable ``texts -> unit vectors`` (float32 rows); ``model_id`` names the model.

    With ``store``, the child embeds through that store's vector cache (and fills it), as
    replay does; without, it keeps the vectors in its own memory only.
    """

    def __init__(self, process: ReplayProcess | None = None, store: Path | str | None = None) -> None:
        self._process = process  # None: whichever ``shared_process`` is current at each call
        self._store = None if store is None else str(store)
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # one request at a time per embedder keeps the memory simple
        self.model_id: str | None = None

    def _pool(self) -> ReplayProcess:
        return self._process if self._process is not None else shared_process()

    def load(self) -> RemoteEmbedder:
        """Make sure a child has the model; ``EmbeddingUnavailable`` (with the child's reason) if not."""
        state: ModelState | None = None
        with self._pool().lease() as worker, closing(worker.replies(LoadModel())) as replies:
            for reply in replies:
                if isinstance(reply, ModelState):
                    state = reply
        if state is None or state.state != "ready":
            raise EmbeddingUnavailable(state.info if state is not None and state.info else "no embedding model")
        self.model_id = state.info
        return self

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._memory]
            if missing:
                self._memory.update(zip(missing, self._fetch(missing)))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([self._memory[t] for t in texts])

    def _fetch(self, texts: list[str]) -> np.ndarray:
        answer: Embedded | None = None
        request = Embed(tuple(texts), self._store)
        with self._pool().lease() as worker, closing(worker.replies(request)) as replies:
            for reply in replies:
                if isinstance(reply, Embedded):
                    answer = reply
        if answer is None or answer.rows != len(texts) or len(answer.vectors) != 4 * answer.rows * answer.dim:
            raise ProtocolError(f"the replay process answered {len(texts)} texts with "
                                f"{answer.rows if answer else 'no'} vectors")
        self.model_id = answer.model_id
        return np.frombuffer(answer.vectors, dtype="<f4").reshape(answer.rows, answer.dim).astype(np.float32)
