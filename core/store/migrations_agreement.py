"""Schema step 7: the two agreement questions (firing and scope).

Additive only, so a store made before it upgrades without loss: every existing session is
marked ``question = 'single'`` (the old one-question protocol) and keeps its items,
judgements and results exactly; new sessions are ``'firing_scope'``.

* ``agreement_item.scope_replay``: replay's implied scope answer (``in_scope`` for a failure
  in the rule's recall pool); NULL when the scope question is not asked.
* ``agreement_item.rule_pool``: the rule's recall-pool kind for the run (``domain`` | ``all``
  | ``fallback``), so scope agreement can be reported for domain-less rules apart.
* ``agreement_judgement.scope``: the reviewer's scope answer (NULL when not asked).
"""

from __future__ import annotations

from core.store.migration_base import Migration

AGREEMENT_QUESTIONS = Migration(
    7,
    "agreement: firing and scope questions; sessions made before are marked as using the old question",
    (
        "ALTER TABLE agreement_session ADD COLUMN question TEXT NOT NULL DEFAULT 'single'",
        "ALTER TABLE agreement_item ADD COLUMN scope_replay TEXT",
        "ALTER TABLE agreement_item ADD COLUMN rule_pool TEXT",
        "ALTER TABLE agreement_judgement ADD COLUMN scope TEXT",
    ),
)
