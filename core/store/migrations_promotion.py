"""Schema step 5: promotions (standing rules made here) and a never-reused id counter.

Registered in ``core.store.migrations.MIGRATIONS`` after the labels step (4). Kept in its
own module so the promotion work does not edit the shared migration list.

Why a counter table: the reference allocates ``R-NNN`` from the highest top-level file in
the rule folder, so archiving the newest rule frees its number for reuse (reference §12.2).
Here the next number lives in the store and only ever grows.
"""

from __future__ import annotations

from core.store.migration_base import Migration

PROMOTION = Migration(
    5,
    "promotions (standing rules with provenance and evidence snapshot), persistent id counter",
    (
        """CREATE TABLE promotion (
            id INTEGER PRIMARY KEY,
            rule_id INTEGER NOT NULL REFERENCES rule(id) ON DELETE CASCADE,
            rule_version_id INTEGER NOT NULL REFERENCES rule_version(id) ON DELETE CASCADE,
            decision_id INTEGER REFERENCES decision(id) ON DELETE SET NULL,
            standing_id TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL CHECK (status IN ('active', 'retired', 'superseded')),
            superseded_by TEXT,
            status_reason TEXT,
            provenance_json TEXT NOT NULL,
            evidence_json TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        "CREATE INDEX ix_promotion_rule ON promotion(rule_id)",
        "CREATE INDEX ix_promotion_status ON promotion(status)",
        # One row per id series ('R' for standing rules); next_value only ever grows.
        """CREATE TABLE id_counter (
            name TEXT PRIMARY KEY,
            next_value INTEGER NOT NULL CHECK (next_value >= 1)
        )""",
    ),
)
