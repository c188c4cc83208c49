"""The decision rule set, as data: which decisions need a reason, and what an active standing rule allows.

One set for the Review tab, the Promotion tab and the CLI (docs/promotion.md, "The decision
rules"). ``core.decisions.service.decide`` enforces it inside the write transaction; a screen may
read it to ask for a reason *before* submitting (``reason_needed``), never to decide differently.

A reason is what the audit log keeps for a decision that goes against the evidence or changes a
standing rule:

* reject, retire, supersede: always;
* approve against replay's verdict (``override_verdict``): always;
* approve while the blind agreement gate failed (``acknowledge_gate``): always -- the
  acknowledgement says "replay alone is not trusted here" and the reason says why the human
  approves anyway;
* approve a candidate from a tainted source: the reason is the written justification
  (``core.loop.taint``);
* approve a passing rule, defer: optional (deciding later needs no justification).

An active standing rule (approved here, or imported from a rule store) is not a candidate any
more: it cannot be rejected or deferred, only retired or superseded (or re-approved on a newer
run).
"""

from __future__ import annotations

ALWAYS_NEEDS_REASON = {"reject": "a rejection", "retire": "a retirement", "supersede": "a supersession"}
OPTIONAL_REASON = ("approve", "defer")
STANDING_RULE_ACTIONS = ("approve", "retire", "supersede")  # what an active standing rule allows
NOT_FOR_STANDING_RULES = ("reject", "defer")


def reason_needed(action: str, *, override_verdict: bool = False, acknowledge_gate: bool = False) -> str | None:
    """Why ``action`` needs a written reason (the refusal's wording), or None when it is optional.

    ``acknowledge_gate`` means the approval acknowledges a *failed* agreement gate (a gate that
    passed or was not measured needs no acknowledgement, so none is recorded)."""
    if action in ALWAYS_NEEDS_REASON:
        return f"{ALWAYS_NEEDS_REASON[action]} needs a reason"
    if action == "approve" and override_verdict:
        return "overriding replay's verdict needs a written reason"
    if action == "approve" and acknowledge_gate:
        return "approving while the blind agreement gate failed needs a written reason beside the acknowledgement"
    return None


def standing_rule_refusal(action: str, rule_label: str, standing_id: str, imported: bool) -> str | None:
    """The refusal for ``action`` on an active standing rule, or None when the action is allowed."""
    if action not in NOT_FOR_STANDING_RULES:
        return None
    origin = "the imported active standing rule" if imported else "the active standing rule"
    verb = {"reject": "rejected", "defer": "deferred"}[action]
    return f"{rule_label} is {origin} {standing_id}: it cannot be {verb}; retire or supersede it instead"
