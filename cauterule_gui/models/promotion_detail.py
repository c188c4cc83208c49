"""The promotion queue's detail pane as plain text: everything the gates say about one
candidate, as (heading, lines) sections. The table's cell wording is in
``promotion_queue_model``; this module only composes the longer read-out."""

from __future__ import annotations

from typing import Any

from core.promotion import QueueItem

from cauterule_gui.models.formatting import BUCKET_WORDS, number
from cauterule_gui.models.promotion_cells import DECISION_TEXT, GATE_SYMBOL, rule_label, verdict_text
from cauterule_gui.models.promotion_queue_model import QueueSnapshot

Section = tuple[str, list[str]]


def _standing_lines(snapshot: QueueSnapshot | None, standing_id: str) -> list[str]:
    other = None if snapshot is None else snapshot.standing.get(standing_id)
    if other is None:
        return ["    (text not available)"]
    return [f"    when: {other.trigger}", f"    do:   {other.directive}"]


def detail_sections(item: QueueItem, snapshot: QueueSnapshot | None = None) -> list[Section]:
    """Everything the gates say about one candidate, as (heading, lines) in plain text."""
    counts = item.counts
    sections: list[Section] = [(
        f"{rule_label(item)} — {item.kind}, version {item.version}",
        [f"when: {item.trigger}", f"do:   {item.directive}", f"origin: {item.origin}",
         f"source trajectory: {item.source_trajectory or '—'}"],
    ), (
        f"Replay evidence — run #{item.run_id}",
        [f"verdict: {verdict_text(item)}",
         "  ·  ".join(f"{BUCKET_WORDS.get(b, b)} {counts.get(b, 0)}" for b in ("prevented", "broken", "near_miss",
                                                                             "missed")),
         f"precision {number(item.precision, 2)}  ·  recall {number(item.recall, 2)}"],
    )]
    sections.append(("Gates", [f"{GATE_SYMBOL.get(g.state, '?')} {g.name.replace('_', ' ')}: {g.detail}"
                               for g in item.gates]))
    broken = item.gate("broken_reviewed")
    lines = []
    if broken.data.get("unreviewed"):
        who = "you have" if snapshot is not None and snapshot.reviewer else "no reviewer has"
        lines.append(f"not yet opened or waived ({who} not): " + ", ".join(broken.data["unreviewed"]))
    for w in broken.data.get("waivers") or []:
        lines.append(f"waived {w['trajectory_id']} by {w['reviewer']} ({str(w['at'])[:19]}): {w['reason']}")
    if lines:
        sections.append((f"Broken evidence ({broken.data.get('broken', 0)} broken)", lines))
    dup = item.gate("duplicates")
    matches = dup.data.get("matches") or []
    lines = []
    for m in matches:
        how = "exactly equal (trigger, directive, signature)" if m.get("exact") else f"similarity {m['similarity']:.2f}"
        lines.append(f"{m['standing_id']} — {how}")
        lines.extend(_standing_lines(snapshot, m["standing_id"]))
    if lines:
        sections.append((f"Near-duplicates among approved rules ({dup.data.get('method')} similarity, "
                         f"threshold {dup.data.get('threshold')})", lines))
    conflicts = item.gate("conflicts").data
    lines = []
    for c in conflicts.get("conflicts") or []:
        lines.append(f"{c['other']} — fires on {len(c['shared'])} of the same trajectories; directives differ "
                     f"(similarity {c['directive_similarity']:.2f} < {conflicts.get('directive_threshold')})")
        lines.extend(_standing_lines(snapshot, c["other"]))
        lines.append("    shared: " + ", ".join(c["shared"]))
    if lines:
        sections.append((f"Conflicts with approved rules ({conflicts.get('method')} similarity)", lines))
    if item.decision is not None or item.standing_id:
        lines = []
        if item.decision is not None:
            lines.append(f"{DECISION_TEXT.get(item.decision, item.decision)} by {item.decided_by}: "
                         f"{item.decision_reason or '—'}")
        if item.standing_id:
            lines.append(f"standing rule {item.standing_id}: {item.promotion_status}")
        sections.append(("Decision", lines))
    if item.stale is not None:
        sections.append(stale_section(item))
    if item.notes:
        sections.append(("Notes", list(item.notes)))
    return sections


def stale_section(item: QueueItem) -> Section:
    report = item.stale
    assert report is not None
    heading = ("⚠ STALE approval" if report.stale else "Approval") + (
        f" — approved on run #{report.approved_run_id}, compared with run #{report.compared_run_id}"
        if report.compared_run_id is not None else f" — approved on run #{report.approved_run_id}")
    lines = [report.summary]
    if report.stale or report.verdict_before != report.verdict_after:
        lines.append(f"verdict: {report.verdict_before} → {report.verdict_after}")
    if report.moves:
        lines.append(f"moved trajectories ({len(report.moves)}):")
        lines.extend(f"    {m.trajectory_id}: {BUCKET_WORDS.get(m.from_bucket, m.from_bucket)} → "
                     f"{BUCKET_WORDS.get(m.to_bucket, m.to_bucket)}" for m in report.moves)
    if report.config_changes:
        lines.append("run differences:")
        lines.extend(f"    {key}: {_short(before)} → {_short(after)}"
                     for key, (before, after) in sorted(report.config_changes.items()))
    if report.rule_edited:
        lines.append("the rule's text was edited after approval; the approval covers the older version")
    return heading, lines


def _short(value: Any) -> str:
    text = "—" if value is None else str(value)
    return text if len(text) <= 24 else text[:12] + "…" + text[-8:]


def hidden_detail_sections(item: QueueItem, snapshot: QueueSnapshot | None, why: str) -> list[Section]:
    """The detail of a rule whose replay answer is hidden (the reviewer's unfinished blind
    session): the rule, why nothing else is shown and how to see it, its near-duplicates (word or
    embedding similarity, no replay) and its decision. No verdict, counts, gates or staleness."""
    full = detail_sections(item, snapshot)
    sections: list[Section] = [full[0], ("◌ Replay's answer hidden", [
        why, "Deciding the rule here would rest on replay's answer, so Approve, Reject and Defer wait "
        "until the session is finished or you choose “Show evidence anyway”."])]
    sections += [s for s in full[1:] if s[0].startswith(("Near-duplicates", "Decision"))]
    return sections
