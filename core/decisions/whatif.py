"""What-if edits: the rule text a reviewer tries, saved as a new version (or not) in one transaction.

The Review tab's what-if dialog only asks; this decides: the rule must exist, the trigger and
directive must not be blank, and an unchanged text makes no new version (the replay then
re-runs the latest one). Checked inside the write transaction that saves the version, with
its ``edit_rule`` audit event. With ``expected_version`` (the rule's row version the screen
showed) an edit made after another reviewer's decision or edit is refused
(``ConcurrentChangeError``: who did what, when); nothing is saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.domain.names import checked_name, checked_reason
from core.store.engine import Store
from core.store.review_repo import append_audit
from core.store.row_versions import rule_version
from core.store.rule_repo import RuleText, _add_version, _latest_version_row, _text_of

WHATIF_NOTE = "what-if edit in the review workspace"


class WhatIfRefused(ValueError):
    """The edit cannot be saved; the message says why (shown as it is)."""


@dataclass(frozen=True)
class WhatIfEdit:
    rule_id: int
    version: int
    changed: bool  # False: the text was the latest version's, nothing was written
    row_version: int | None = None  # the rule's row version after the save (what the screen holds next)

    @property
    def label(self) -> str:
        """How the replay run of this edit is named."""
        return f"what-if rule {self.rule_id} v{self.version}" + ("" if self.changed else " (unchanged)")


def save_whatif_edit(store: Store, rule_id: int, trigger: str, directive: str, author: str,
                     note: str = WHATIF_NOTE, expected_version: int | None = None) -> WhatIfEdit:
    author = checked_name(author, "author name")
    note = checked_reason(note, "note") or ""
    if not author:
        raise WhatIfRefused("a reviewer name is needed to save an edited rule")
    if not trigger.strip():
        raise WhatIfRefused("the trigger is empty: a rule needs a 'when'")
    if not directive.strip():
        raise WhatIfRefused("the directive is empty: a rule needs a 'do'")
    with store.session() as session:
        latest = _latest_version_row(session, rule_id)
        if latest is None:
            raise WhatIfRefused(f"rule {rule_id} does not exist in this store")
        if (trigger, directive) == (latest.trigger, latest.directive):
            return WhatIfEdit(rule_id, latest.version, changed=False, row_version=rule_version(session, rule_id))
        old = _text_of(latest)
        text = RuleText(trigger=trigger, directive=directive, context=old.context, signature=old.signature,
                        because=old.because, confidence=old.confidence)
        row = _add_version(session, rule_id, text, author, note, expected_version)
        append_audit(session, author, "edit_rule", "rule", rule_id, note,
                     before={"version": latest.version, "trigger": latest.trigger, "directive": latest.directive},
                     after={"version": row.version, "trigger": row.trigger, "directive": row.directive})
        return WhatIfEdit(rule_id, row.version, changed=True, row_version=rule_version(session, rule_id))
