"""A rule that can fire: split a one-sentence rule into trigger and directive.

A candidate copied from a record's ``expected_rule`` is one sentence ("when git push fails
with non-fast-forward, pull --rebase before pushing") used as both ``when.trigger`` and
``do.directive``. CauterRule's injection matcher fires a rule only when its trigger is a
substring of the task, and a whole sentence of advice is a substring of no task: approved as
is, the rule would never fire. So approving such a rule is refused with a proposed split
(``SplitOffered``, core.decisions.service); the reviewer edits the halves and saves them as a
new version (``save_whatif_edit``: the what-if replay then shows what the edit moves), or
acknowledges that the rule fires on no task, which the audit log records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.loop.injection import PoolItem, fires_unfiltered
from core.loop.views import injection_pool
from core.metrics.extraction import parse_expected_rule
from core.store.duplicate_key import normalise
from core.store.engine import Store

# Where the condition of a one-sentence rule ends and the advice begins, after "when …".
_BREAKS = re.compile(r",|;|:|\s+(?:then|→|->)\s+", re.IGNORECASE)
_LEAD = re.compile(r"^(?:when|whenever|if|once|after)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class SplitProposal:
    sentence: str
    trigger: str
    directive: str

    def describe(self) -> str:
        return f"trigger {self.trigger!r}, directive {self.directive!r}"


def same_sentence(trigger: str, directive: str) -> bool:
    """Trigger and directive say the same thing (case and spacing aside)."""
    return bool(trigger.strip()) and normalise(trigger) == normalise(directive)


def propose_split(trigger: str, directive: str) -> SplitProposal | None:
    """The proposed halves of a one-sentence rule; None when the rule is already two halves.

    The condition is what follows "when" (or "if", "after" …) up to the first comma, semicolon,
    colon or "then"; the rest is the directive. A sentence with no such break is offered whole
    as the directive and with its first clause as the trigger, for the reviewer to edit."""
    if not same_sentence(trigger, directive):
        return None
    sentence = " ".join(trigger.split())
    body = _LEAD.sub("", sentence)
    found = _BREAKS.search(body)
    if found is not None and body[:found.start()].strip() and body[found.end():].strip():
        return SplitProposal(sentence, body[:found.start()].strip(), body[found.end():].strip())
    first, rest = parse_expected_rule(sentence)
    return SplitProposal(sentence, first.strip(), (rest or sentence).strip())


def tasks_fired(store: Store, trigger: str, context: tuple[str, ...] = (),
                pool: Sequence[PoolItem] | None = None) -> int:
    """How many of the store's trajectory tasks the injection matcher fires this trigger on
    (``pool``: the store's injection pool, when the caller already read it)."""
    items = injection_pool(store) if pool is None else pool
    return sum(1 for item in items if fires_unfiltered(item, trigger.lower(), tuple(c.lower() for c in context)))
