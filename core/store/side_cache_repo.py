"""The trajectory sides kept in the store (``replay_side_cache``), so a new process's first run
on the same trajectories reads its side instead of building it.

``StoredSides`` is what ``core.replaying`` passes to ``replay()`` (a ``view_cache.Persisted``):
``load`` reads and decodes an entry, and a blob that cannot be used (damaged, another format
or engine, hostile) is logged and reported as no entry, so the side is built again and the
entry replaced; ``built`` only remembers a new side, and ``save_pending`` writes it in its
own short write transaction once the run's results are saved (encoding and writing never
delay a run's first results). At most ``MAX_STORED`` entries are kept: writing one deletes
the oldest, so the table does not grow with every corpus change.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import text

from core.replay import side_codec, view_cache
from core.replay.snapshot import ENGINE_VERSION
from core.replay.types import ReplayTrajectory
from core.store.engine import Store

log = logging.getLogger(__name__)

MAX_STORED = 3  # the set being worked on, plus the last few (a selection, the set before an import)


class SideCacheRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, cache_key: str) -> bytes | None:
        with self._store.read_session() as session:
            blob = session.execute(text("SELECT data FROM replay_side_cache WHERE cache_key = :key"),
                                   {"key": cache_key}).scalar()
        return None if blob is None else bytes(blob)

    def put(self, cache_key: str, trajectories: int, blob: bytes) -> None:
        """Replace the entry under ``cache_key`` and keep only the newest ``MAX_STORED``."""
        with self._store.session() as session:
            session.execute(text("DELETE FROM replay_side_cache WHERE cache_key = :key"), {"key": cache_key})
            session.execute(
                text("INSERT INTO replay_side_cache (cache_key, format, engine_version, trajectories, data) "
                     "VALUES (:key, :format, :engine, :n, :data)"),
                {"key": cache_key, "format": side_codec.FORMAT_VERSION, "engine": ENGINE_VERSION,
                 "n": trajectories, "data": blob},
            )
            session.execute(
                text("DELETE FROM replay_side_cache WHERE id NOT IN "
                     "(SELECT id FROM replay_side_cache ORDER BY id DESC LIMIT :keep)"),
                {"keep": MAX_STORED},
            )

    def keys(self) -> list[str]:
        """Stored keys, oldest first."""
        with self._store.read_session() as session:
            return [str(r[0]) for r in session.execute(text("SELECT cache_key FROM replay_side_cache ORDER BY id"))]


class StoredSides:
    """A run's ``view_cache.Persisted`` over the store, for the run's ``trajectories``."""

    def __init__(self, store: Store, trajectories: Sequence[ReplayTrajectory]) -> None:
        self._repo = SideCacheRepository(store)
        self._trajectories = trajectories
        self._pending: tuple[str, Any] | None = None

    def load(self, key: tuple[Any, ...]) -> Any | None:
        digest = side_codec.side_key(key)
        try:
            blob = self._repo.get(digest)
        except Exception:  # a store too old to have the table, a dropped connection: build instead
            log.warning("trajectory side: the store's copy could not be read; building it", exc_info=True)
            return None
        if blob is None:
            return None
        try:
            return side_codec.decode(blob, digest, self._trajectories, include_input=bool(key[1]))
        except side_codec.SideFormatError as error:
            log.warning("trajectory side in the store ignored (%s); building it again and replacing it", error)
            return None

    def built(self, key: tuple[Any, ...], value: Any) -> None:
        self._pending = (side_codec.side_key(key), value)

    def save_pending(self) -> bool:
        """Write the side built during the run, if any (its own transaction). A failure is
        logged, never raised: the cache is an optimisation and the run is already saved."""
        if self._pending is None:
            return False
        digest, side = self._pending
        self._pending = None
        try:
            self._repo.put(digest, len(self._trajectories), side_codec.encode(side, digest))
        except Exception as error:
            # One line (a full disk is a known condition, not a crash): the traceback only at
            # debug level, for whoever turns logging up.
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            log.warning("trajectory side: could not be kept in the store (%s); the run is saved, the next run "
                        "builds the side again", first)
            log.debug("trajectory side: the failed write", exc_info=True)
            return False
        return True


def keep_side(store: Store, trajectories: Sequence[ReplayTrajectory], include_input: bool = True) -> bool:
    """Build and store the side a run over ``trajectories`` (lexical or semantic: the side is
    the same) will look for, unless it is there already or the set is larger than
    ``view_cache.MAX_TRAJECTORIES``. True when an entry was written."""
    from core.matching.profile import REFERENCE_0_3_1
    from core.replay.engine import build_trajectory_side, trajectory_side_key
    from core.replay.snapshot import corpus_hash

    if not trajectories or len(trajectories) > view_cache.MAX_TRAJECTORIES:
        return False
    key = trajectory_side_key(trajectories, include_input, None, corpus_hash(trajectories))
    sides = StoredSides(store, trajectories)
    if sides.load(key) is not None:
        return False
    matcher = replace(REFERENCE_0_3_1.with_semantic(False), include_input=include_input)  # views read only this
    sides.built(key, build_trajectory_side(trajectories, matcher, None, None))
    return sides.save_pending()
