"""Persistent embedding cache: vectors keyed by (model id, text hash)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from sqlalchemy import text

from core.store.engine import Store
from core.store.postgres import json_values_sql


class EmbeddingCacheRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def get_many(self, model_id: str, text_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors for many hashes in one query (the hashes travel as one JSON array)."""
        found: dict[str, np.ndarray] = {}
        if not text_hashes:
            return found
        with self._store.read_session() as session:
            rows = session.execute(
                text("SELECT text_hash, dim, vector FROM embedding WHERE model_id = :model "
                     f"AND text_hash IN ({json_values_sql(session, 'hashes')})"),
                {"model": model_id, "hashes": json.dumps(list(text_hashes))},
            ).all()
        for text_hash, dim, blob in rows:
            vector = np.frombuffer(blob, dtype=np.float32)
            if vector.shape[0] == dim:
                found[text_hash] = vector
        return found

    def put_many(self, model_id: str, vectors: dict[str, np.ndarray]) -> None:
        if not vectors:
            return
        rows = [
            {"model": model_id, "hash": h, "dim": int(v.shape[0]), "vector": np.asarray(v, dtype=np.float32).tobytes()}
            for h, v in vectors.items()
        ]
        with self._store.session() as session:
            session.execute(
                text(
                    "INSERT INTO embedding (model_id, text_hash, dim, vector) "
                    "VALUES (:model, :hash, :dim, :vector) "
                    "ON CONFLICT (model_id, text_hash) DO NOTHING"  # same text, same model: same vector
                ),
                rows,
            )

    def count(self, model_id: str | None = None) -> int:
        with self._store.read_session() as session:
            if model_id is None:
                return int(session.execute(text("SELECT count(*) FROM embedding")).scalar_one())
            return int(
                session.execute(text("SELECT count(*) FROM embedding WHERE model_id = :m"), {"m": model_id}).scalar_one()
            )
