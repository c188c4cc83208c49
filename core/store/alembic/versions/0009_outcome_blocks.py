"""Replay outcomes as one columnar block per result, not one row per pair.

Revision ID: 0009_outcome_blocks
Revises: 0008_indexes

A run at 10^5 trajectories x 10^3 rules stored ~6.6 million ``replay_outcome_stored`` rows and
spent half its time inserting them (Python's sqlite3 costs ~4.5 us per row). Each result's
pairs are now one ``replay_outcome_block`` row (``core.store.outcome_blocks``: numpy columns
with a small versioned header); ``core.store.outcome_reads`` decodes them and adds the derived
score-0 ``missed`` rows from ``replay_pool`` (kept as it is), so readers get the rows the
``replay_outcome`` view gave.

Existing rows are converted one result at a time (each result's rows in one query, never the
whole table), then the view and the old table are dropped. The same steps on SQLite and
PostgreSQL. The encoder is imported, not frozen here: the block carries its own format version
and the readers of this code read what its encoder writes. No downgrade: the old layout's
reader is gone; restore the store file (or database dump) from before the upgrade instead.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.store.outcome_blocks import encode

revision = "0009_outcome_blocks"
down_revision = "0008_indexes"
branch_labels = None
depends_on = None

_COLUMNS = "trajectory_pk, bucket, score, token_f1, bigram, cosine, view, floor, threshold, margin"


def upgrade() -> None:
    op.create_table(
        "replay_outcome_block",
        sa.Column("result_id", sa.Integer(), sa.ForeignKey("replay_result.id", ondelete="CASCADE"),
                  primary_key=True, autoincrement=False, nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    bind = op.get_bind()
    results = [int(r[0]) for r in bind.execute(
        sa.text("SELECT DISTINCT result_id FROM replay_outcome_stored ORDER BY result_id")).all()]
    for result_id in results:
        rows = bind.execute(sa.text(f"SELECT {_COLUMNS}, spans_json FROM replay_outcome_stored "
                                    "WHERE result_id = :res ORDER BY id"), {"res": result_id}).all()
        spans = [r[10] for r in rows]
        data = encode([tuple(r[:10]) for r in rows], None if all(s is None for s in spans) else spans)
        bind.execute(sa.text("INSERT INTO replay_outcome_block (result_id, n, data) VALUES (:res, :n, :data)"),
                     {"res": result_id, "n": len(rows), "data": data})
    op.execute("DROP VIEW IF EXISTS replay_outcome")
    op.drop_index("ix_outcome_stored_pair", "replay_outcome_stored")
    op.drop_table("replay_outcome_stored")


def downgrade() -> None:
    raise NotImplementedError(
        "0009_outcome_blocks has no downgrade: restore the store from before the upgrade")
