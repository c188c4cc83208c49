"""What each cell of the promotion queue says: its text, its tooltip, the gate state behind it
and the colour that marks it (no widgets: ``promotion_queue_model`` serves these to the view,
``promotion_detail`` reuses the wording in the detail pane).

Every cell says its state in words or symbols (✓ pass, ✗ fail, ⚠ warn, — not measured), so
nothing relies on colour.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from core.promotion import QueueItem
from core.promotion.gates import Gate

from cauterule_gui.glossary import explain, word
from cauterule_gui.models.formatting import VERDICT_TEXT

COLUMNS = ("Queue", "Rule", "Trigger", "Verdict", "Broken evidence", "Agreement", "Near-duplicates",
           "Conflicts", "Decision", "Stale")
(COL_GROUP, COL_RULE, COL_TRIGGER, COL_VERDICT, COL_BROKEN, COL_AGREEMENT, COL_DUPLICATES, COL_CONFLICTS,
 COL_DECISION, COL_STALE) = range(len(COLUMNS))

GATE_SYMBOL = {"pass": "✓", "fail": "✗", "warn": "⚠", "not_measured": "—"}
RUN_POOLED = "run_pooled"  # gate data "scope" (core.promotion.gates): none of the rule's items was judged
DECISION_TEXT = {"approve": "✓ approved", "reject": "✗ rejected", "defer": "… deferred"}
_SWATCH_FOR_STATE = {"pass": "pass", "fail": "fail", "warn": "inconclusive", "stale": "fail"}
# Replay's answer, hidden for a rule in the reviewer's unfinished blind session
# (``cauterule_gui.blind_guard``): the queue's wording says ready / not passing, the gates and
# the staleness are read off replay's buckets, a conflict off the trajectories it fires on.
BLIND_COLUMNS = (COL_GROUP, COL_VERDICT, COL_BROKEN, COL_AGREEMENT, COL_CONFLICTS, COL_STALE)
BLIND_WORDS = {COL_VERDICT: "◌ hidden", COL_GROUP: "blind session"}  # as in the rules table
_GATE_COLUMNS = {COL_BROKEN: "broken_reviewed", COL_AGREEMENT: "agreement", COL_DUPLICATES: "duplicates",
                 COL_CONFLICTS: "conflicts", COL_VERDICT: "verdict"}


def rule_label(item: QueueItem) -> str:
    """The rule's file name; with its standing id first once it has one (gates name that id),
    once when they are the same (an imported standing rule is named after its file)."""
    name = PurePosixPath(item.origin).stem or item.origin
    return f"{item.standing_id} · {name}" if item.standing_id and item.standing_id != name else name


def verdict_text(item: QueueItem) -> str:
    """"✓ pass", or the symbol and the reason's short word ("? near misses", "✗ breaks successes"):
    the symbol and colour say the verdict, the tooltip says it whole."""
    text = VERDICT_TEXT.get(item.verdict, item.verdict)
    if item.reason in (item.verdict, "pass"):
        return text
    return f"{text.split(' ', 1)[0]} {word(item.reason)}"


def verdict_tooltip(item: QueueItem) -> str:
    return f"{item.verdict}: {explain(item.reason)}"


def broken_text(gate: Gate) -> str:
    data = gate.data
    broken = int(data.get("broken", 0) or 0)
    if gate.state == "pass" and not broken:
        return "✓ none broken"
    waived = len(data.get("waivers") or [])
    if gate.state == "pass":
        return f"✓ {broken}/{broken} reviewed" + (f" ({waived} waived)" if waived else "")
    missing = len(data.get("unreviewed") or [])
    return f"✗ {missing}/{broken} unreviewed"  # as "✓ 4/4 reviewed": short enough for its column at 1280


def agreement_text(gate: Gate) -> str:
    """The agreement cell: the same numbers as the gate's detail whenever they exist.

    Measured but undecided (the interval spans the gate) reads "⚠ 0.67 [0.21–0.94] spans 0.80",
    never "— not measured" beside a detail that shows the numbers. A rule none of whose items
    was judged carries the run's pooled gate and says so ("· run")."""
    if gate.data.get("source") == "blind sessions":
        # The cell carries the numbers; the sentence ("human approval required: …") is the
        # row's Queue wording, its tooltip and the detail pane (a table cell elides it).
        blind = gate.data.get("blind") or {}
        found = blind.get("agreement") or {}
        value, low, high = found.get("value"), found.get("ci_low"), found.get("ci_high")
        if not all(isinstance(v, (int, float)) for v in (value, low, high)):
            return "— not measured"
        threshold = float(blind.get("threshold", 0.8))
        decided = gate.state in ("pass", "fail")
        symbol = GATE_SYMBOL.get(gate.state if decided else "warn", "")
        relation = {"pass": "≥", "fail": "<"}.get(gate.state, "spans")
        pooled = " · run" if gate.data.get("scope") == RUN_POOLED else ""
        return f"{symbol} {value:.2f} [{low:.2f}–{high:.2f}] {relation} {threshold:.2f}{pooled}"
    if gate.state == "not_measured":
        return "— not measured"
    value, low = gate.data.get("agreement"), gate.data.get("ci_low")
    symbol = GATE_SYMBOL.get(gate.state, "")
    if isinstance(value, (int, float)) and isinstance(low, (int, float)):
        return f"{symbol} {gate.state} {value:.0%} (low {low:.2f})"
    return f"{symbol} {gate.state}"


def duplicates_text(gate: Gate) -> str:
    method = gate.data.get("method", "?")
    matches = gate.data.get("matches") or []
    if not matches:
        return f"✓ none ({method})"
    shown = ", ".join(f"{m['standing_id']} " + ("exact" if m.get("exact") else f"{m['similarity']:.2f}")
                      for m in matches[:3])
    more = f" +{len(matches) - 3}" if len(matches) > 3 else ""
    return f"⚠ {shown}{more} ({method})"


def conflicts_text(gate: Gate) -> str:
    found = gate.data.get("conflicts") or []
    if not found:
        return "✓ none"
    shown = ", ".join(f"{c['other']} ({len(c['shared'])} shared)" for c in found[:3])
    return f"⚠ {shown}" + (f" +{len(found) - 3}" if len(found) > 3 else "")


def decision_text(item: QueueItem) -> str:
    """The decision and the standing rule's state ("✓ approved · active"); the standing id is in
    the Rule column and the tooltip (with it, the cell was elided to "✓ appr…active")."""
    if item.decision is None and item.standing_id:
        # An imported standing rule awaits no decision: its state is what matters.
        return f"{item.promotion_status}"
    text = "· undecided" if item.decision is None else DECISION_TEXT.get(item.decision, item.decision)
    if item.standing_id:
        text += f" · {item.promotion_status}"
    return text


def decision_tooltip(item: QueueItem) -> str:
    parts = [decision_text(item)]
    if item.standing_id:
        parts.append(f"standing rule {item.standing_id} ({item.promotion_status})")
    if item.decided_by:
        parts.append(f"by {item.decided_by}" + (f": {item.decision_reason}" if item.decision_reason else ""))
    return ", ".join(parts)


def is_stale(item: QueueItem) -> bool:
    return item.stale is not None and item.stale.stale


def stale_text(item: QueueItem) -> str:
    report = item.stale
    if report is None:
        return ""
    if not report.stale:
        return "✓ current" + (" (rule edited since)" if report.rule_edited else "")
    parts = []
    if report.profile_changed:  # approved under another profile than the adopted one: look again
        parts.append(f"profile {report.approved_profile} → {report.adopted_profile}")
    if report.verdict_before != report.verdict_after:
        parts.append(f"{report.verdict_before} → {report.verdict_after}")
    if report.moves:
        parts.append(f"{len(report.moves)} moved")
    return "⚠ STALE" + (f": {', '.join(parts)}" if parts else "")


def queue_short(item: QueueItem) -> str:
    """The Queue cell: the head of the core's wording (the whole sentence is the tooltip)."""
    wording = item.wording  # never "ready" beside a failed gate: the core words it
    if item.imported:
        return "imported, active"
    if wording.startswith(("human approval required", "ready", "not ready", "not replayed")):
        return wording.split(":", 1)[0]
    return wording


def cell_text(item: QueueItem, column: int) -> str:
    if column == COL_GROUP:
        return queue_short(item)
    if column == COL_RULE:
        return rule_label(item)
    if column == COL_TRIGGER:
        return " ".join(item.trigger.split())
    if column == COL_VERDICT:
        return verdict_text(item)
    if column == COL_BROKEN:
        return broken_text(item.gate("broken_reviewed"))
    if column == COL_AGREEMENT:
        return agreement_text(item.gate("agreement"))
    if column == COL_DUPLICATES:
        return duplicates_text(item.gate("duplicates"))
    if column == COL_CONFLICTS:
        return conflicts_text(item.gate("conflicts"))
    if column == COL_DECISION:
        return decision_text(item)
    if column == COL_STALE:
        return stale_text(item)
    return ""


def cell_state(item: QueueItem, column: int) -> str | None:
    if column in _GATE_COLUMNS:
        return item.gate(_GATE_COLUMNS[column]).state
    if column == COL_STALE and item.stale is not None:
        return "stale" if item.stale.stale else "pass"
    return None


def swatch_name(item: QueueItem, column: int) -> str | None:
    """Colour marks what needs a look (and the verdict, as in the rules table); a passing
    gate stays plain so the failures and warnings stand out. The text carries the state too."""
    if column == COL_VERDICT:
        return item.verdict
    state = cell_state(item, column)
    return _SWATCH_FOR_STATE.get(state or "") if state in ("fail", "warn", "stale") else None


def tooltip_text(item: QueueItem, column: int) -> str:
    if column == COL_GROUP:
        return item.wording
    if column == COL_VERDICT:
        return f"{verdict_tooltip(item)}\n{item.gate('verdict').detail}"
    if column == COL_AGREEMENT and item.gate("agreement").data.get("scope") == RUN_POOLED:
        return (f"{item.gate('agreement').detail}\n· run: the run's pooled agreement gate; none of this "
                "rule's own items was judged")
    if column in _GATE_COLUMNS:
        return item.gate(_GATE_COLUMNS[column]).detail
    if column in (COL_RULE, COL_TRIGGER):
        return f"{item.origin} (version {item.version})\nwhen: {item.trigger}\ndo: {item.directive}"
    if column == COL_STALE and item.stale is not None:
        return item.stale.summary
    if column == COL_DECISION:
        return decision_tooltip(item)
    return cell_text(item, column)
