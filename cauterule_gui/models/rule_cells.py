"""The rules table's columns and cells: what a column shows for a rule, and its tooltip (plain text)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from core.store.workspace_query import WorkspaceRule

from cauterule_gui.glossary import explain, word
from cauterule_gui.models.formatting import MARK_TEXT, STATUS_TEXT, VERDICT_TEXT, rate
from cauterule_gui.plain_text import plain_tooltip

# (header, repository sort key, header tooltip)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Trigger", "trigger", "when … (the rule's trigger)"),
    ("Directive", "directive", "do … (the rule's directive)"),
    ("Domain", "domain", "source domain of the rule"),
    ("Verdict", "verdict", "replay verdict"),
    ("Reason", "reason", "why replay gave that verdict"),
    ("Prev.", "prevented", "failures the rule would have prevented"),
    ("Broken", "broken", "successes the rule would have interfered with"),
    ("Near", "near_miss", "near misses (matched, below the bar)"),
    ("Missed", "missed", "failures in the pool the rule did not match"),
    ("Precision", "precision", "precision with its Wilson 95 % interval; — when unmeasured"),
    ("Recall", "recall", "recall with its Wilson 95 % interval; — when unmeasured"),
    ("Status", "status", "your team's current decision on the rule"),
    ("Reviewer", "reviewer", "who made the current decision"),
    ("Mark", "mark", "your agreement mark on the verdict (unblinded)"),
    ("Rule", "origin", "where the rule came from (file or file:line)"),
    ("Run", "run", "replay run the result comes from"),
)
(COL_TRIGGER, COL_DIRECTIVE, COL_DOMAIN, COL_VERDICT, COL_REASON, COL_PREVENTED, COL_BROKEN, COL_NEAR,
 COL_MISSED, COL_PRECISION, COL_RECALL, COL_STATUS, COL_REVIEWER, COL_MARK, COL_ORIGIN, COL_RUN) = range(len(COLUMNS))
NUMERIC = (COL_PREVENTED, COL_BROKEN, COL_NEAR, COL_MISSED)
# Replay's answers: hidden for a rule in the reviewer's unfinished blind session (blind_guard.py).
# Short words: the Verdict and Reason columns are sized to their widest code word.
BLIND_COLUMNS = (COL_VERDICT, COL_REASON, COL_PREVENTED, COL_BROKEN, COL_NEAR, COL_MISSED, COL_PRECISION, COL_RECALL)
BLIND_WORDS = {COL_VERDICT: "◌ hidden", COL_REASON: "blind session"}


_ROLE = Qt.ItemDataRole
BLIND_ROLES = (_ROLE.DisplayRole, _ROLE.ToolTipRole, _ROLE.AccessibleTextRole, _ROLE.BackgroundRole,
               _ROLE.ForegroundRole)


def blind_data(column: int, role: int, tooltip: str) -> Any:
    """A hidden cell: no verdict, no count, no rate ("·"), no verdict colour; the tooltip says why."""
    if role == _ROLE.DisplayRole:
        return BLIND_WORDS.get(column, "·")
    if role == _ROLE.ToolTipRole:
        return plain_tooltip(tooltip)
    if role == _ROLE.AccessibleTextRole:
        return f"{COLUMNS[column][0]}: hidden while the rule is in your blind session"
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def display(item: WorkspaceRule, column: int) -> str:
    if column == COL_TRIGGER:
        return _one_line(item.trigger)
    if column == COL_DIRECTIVE:
        # expected_rule candidates repeat their sentence as the directive: say so instead.
        return "= trigger" if item.directive.strip() == item.trigger.strip() else _one_line(item.directive)
    if column == COL_DOMAIN:
        return item.domain or "—"
    if column == COL_VERDICT:
        return VERDICT_TEXT.get(item.verdict, item.verdict)
    if column == COL_REASON:
        return word(item.reason)  # "near misses", not "blocked_by_near_miss" (elided to "blo…iss")
    if column == COL_PREVENTED:
        return str(item.prevented_n)
    if column == COL_BROKEN:
        return f"⚠ {item.broken_n}" if item.broken_n else "0"
    if column == COL_NEAR:
        return str(item.near_miss_n)
    if column == COL_MISSED:
        return str(item.missed_n)
    if column == COL_PRECISION:
        return rate(item.precision, item.precision_ci)
    if column == COL_RECALL:
        return rate(item.recall, item.recall_ci)
    if column == COL_STATUS:
        text = STATUS_TEXT.get(item.status, item.status)
        if item.decided_version_id is not None and item.decided_version_id != item.rule_version_id:
            text += " (other version)"
        return text
    if column == COL_REVIEWER:
        return item.reviewer or "—"
    if column == COL_MARK:
        return MARK_TEXT.get(item.verdict_mark or "", "—")
    if column == COL_ORIGIN:
        suffix = f" · v{item.version}" if item.latest_version > 1 or item.version > 1 else ""
        if item.version < item.latest_version:
            suffix += f" (v{item.latest_version} not replayed)"
        # The file's name (what tells rules apart); the folders are in the tooltip.
        return item.origin.rsplit("/", 1)[-1] + suffix
    if column == COL_RUN:
        # Short, so every column fits at 1280 px; the profile is in the tooltip and the title.
        live = "" if item.run_status == "complete" else f" ({item.run_status})"
        return f"#{item.run_id}{live}"
    return ""


def tooltip(item: WorkspaceRule, column: int) -> str | None:
    if column in (COL_TRIGGER, COL_DIRECTIVE, COL_ORIGIN, COL_DOMAIN, COL_REVIEWER):
        return plain_tooltip(display(item, column) if column not in (COL_TRIGGER, COL_DIRECTIVE)
                             else (item.trigger if column == COL_TRIGGER else item.directive))
    if column in (COL_REASON, COL_VERDICT):
        return plain_tooltip(f"{item.verdict}: {explain(item.reason)}")
    if column == COL_STATUS and item.decision_reason:
        return plain_tooltip(f"{display(item, column)} by {item.reviewer}: {item.decision_reason}")
    if column == COL_RUN:
        return plain_tooltip(f"run #{item.run_id}, profile {item.profile}, {item.run_status}")
    if column in (COL_PRECISION, COL_RECALL):
        return "Wilson 95 % interval in brackets; — means unmeasured (no denominator), not zero"
    return None
