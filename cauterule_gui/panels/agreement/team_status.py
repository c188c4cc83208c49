"""The Team page's live section: assign the selected session's items, its progress and inter-rater figures.

A lead assigns the session's blind items here (``core.agreement.assignments.assign``: the
reviewers, how many per item; the same balanced, seeded split as ``agreement assign`` on the
command line). On a team store the server refuses anyone else ("only a lead may assign
items"). Each reviewer sees their own assignment first (how many items, how many judged), and
the Judge page offers them only their items.

``core.agreement.assignments.team_status`` computes them on the database pool (never on the GUI
thread). The section recomputes whenever the window reports an "agreement" change
(``changes_applied``: this window's own writes and, on a team store, other reviewers' commits
delivered by ``cauterule_gui/live_changes.py``), so kappa and alpha move as judgements arrive.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLineEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget

from core.agreement.assignments import AssignmentPlan, TeamStatus

from cauterule_gui.jobs.runner import JobFailure, JobHandle
from cauterule_gui.plain_text import plain_label

AGREEMENT_KIND = "agreement"


def status_text(status: TeamStatus, me: str | None = None) -> str:
    """Plain text for the section (reviewer names are untrusted: the label shows plain text).
    ``me``: the reviewer at this window, whose own assignment comes first."""
    share = ("not assigned: every reviewer judges every item" if status.per_item is None
             else f"assigned, {status.per_item} reviewer(s) per item")
    lines = []
    mine = next((p for p in status.progress if p.reviewer == me), None)
    if status.per_item is not None and me:
        lines.append(f"Your items: {mine.judged} of {mine.assigned} judged (the Judge page offers only these)."
                     if mine is not None and mine.assigned else "Your items: none are assigned to you in this session.")
    lines.append(f"Session {status.session_id}: {status.items} items, {share}.")
    if status.progress:
        lines.append("Progress: " + "; ".join(
            f"{p.reviewer} {p.judged}/{p.assigned if p.assigned is not None else status.items}" for p in status.progress))
    lines.append(f"Items judged by two or more reviewers: {status.multi_judged}.")
    for pair in status.pairs:
        kappa = pair.kappa
        value = f"{kappa.value:.2f}" if kappa.value is not None else f"n/a ({kappa.note})"
        lines.append(f"Cohen's κ {pair.a} / {pair.b}: {value}, {kappa.n} shared item(s)")
    alpha = status.alpha
    lines.append("Krippendorff's α: " + (f"{alpha.value:.2f} over {alpha.units} item(s)" if alpha.value is not None
                                         else f"n/a ({alpha.note})"))
    return "\n".join(lines)


class TeamStatusSection:
    """Mixin for ``TeamPage`` (the widgets live on the panel, like the other pages')."""

    last_team_status: TeamStatus | None = None
    _live_connected = False

    def _build_team_status(self, parent: QWidget) -> QWidget:
        box = QWidget(parent)
        self.team_status_label = plain_label("Select a session to see its team status.", box)
        self.team_status_label.setObjectName("teamStatus")
        self.team_status_label.setWordWrap(True)
        assign = QGroupBox("Assign this session's items (lead)", box)
        self.assign_reviewers = QLineEdit(assign)
        self.assign_reviewers.setObjectName("assignReviewers")
        self.assign_reviewers.setAccessibleName("Reviewers to assign items to")
        self.assign_reviewers.setPlaceholderText("ana, bo, cy (their logins on a team store)")
        self.assign_per_item = QSpinBox(assign)
        self.assign_per_item.setObjectName("assignPerItem")
        self.assign_per_item.setAccessibleName("Reviewers per item")
        self.assign_per_item.setRange(1, 20)
        self.assign_per_item.setValue(2)
        self.assign_button = QPushButton("Assign", assign)
        self.assign_button.setObjectName("assignButton")
        self.assign_button.setToolTip("Give each item to this many of the reviewers (balanced, reproducible); "
                                      "assigning again replaces the assignments, committed judgements stay")
        self.assign_button.clicked.connect(self.assign_selected)
        self.assign_label = plain_label("", assign)
        self.assign_label.setObjectName("assignMessage")
        self.assign_label.setWordWrap(True)
        form = QFormLayout(assign)
        form.addRow(plain_label("Reviewers", assign), self.assign_reviewers)
        form.addRow(plain_label("Per item", assign), self.assign_per_item)
        form.addRow(plain_label("", assign), self.assign_button)
        form.addRow(self.assign_label)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.team_status_label)
        layout.addWidget(assign)
        return box

    def assign_selected(self) -> JobHandle | None:
        """Assign the selected session's items to the typed reviewers (a lead's write, on the database thread)."""
        session = self.current_session()  # type: ignore[attr-defined]
        lead = self.identity.require(self)  # type: ignore[attr-defined]
        names = [n.strip() for n in self.assign_reviewers.text().replace(";", ",").split(",") if n.strip()]
        if session is None or not lead:
            return None
        if not names:
            self.assign_label.setText("Name the reviewers to assign items to (comma-separated).")
            return None
        from core.agreement.assignments import assign

        session_id, per_item = session.id, self.assign_per_item.value()
        handle: JobHandle | None = self._op(  # type: ignore[attr-defined]
            lambda store: assign(store, session_id, names, per_item, assigned_by=lead), "assign items", {AGREEMENT_KIND})
        if handle is not None:
            handle.result.connect(self._on_assigned)
            handle.error.connect(self._assign_failed)
        return handle

    def _on_assigned(self, plan: AssignmentPlan) -> None:
        loads = "; ".join(f"{r} {n}" for r, n in sorted(plan.loads().items()))
        self.assign_label.setText(f"Assigned, {plan.per_item} reviewer(s) per item (seed {plan.seed}): {loads}.")
        self.compute_team_status()

    def _assign_failed(self, failure: JobFailure) -> None:
        text = failure.message or failure.exc_type
        if "permission denied" in text or "row-level security" in text:
            text = "only a lead may assign items (the server refused this login)"
        self.assign_label.setText(f"Not assigned: {text}")

    def _connect_live(self) -> None:
        """Follow the window's change signal once it exists (the panel may be built before its window)."""
        if self._live_connected:
            return
        window: Any = self.window()  # type: ignore[attr-defined]
        signal = getattr(window, "changes_applied", None) or getattr(getattr(window, "db", None), "changes_applied", None)
        if signal is None:
            return
        signal.connect(self._on_changes_applied)
        self._live_connected = True

    def _on_changes_applied(self, kinds: Any, *_initiator: Any) -> None:
        if AGREEMENT_KIND in kinds and self.current_session() is not None:  # type: ignore[attr-defined]
            self.compute_team_status()

    def compute_team_status(self) -> JobHandle | None:
        self._connect_live()
        session = self.current_session()  # type: ignore[attr-defined]
        if session is None:
            return None
        from core.agreement.assignments import team_status

        session_id = session.id
        handle: JobHandle | None = self._db(  # type: ignore[attr-defined]
            lambda store: team_status(store, session_id), "team status", key=f"agreement-team-status:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_team_status)
            handle.error.connect(self._failed("Could not compute the team status"))  # type: ignore[attr-defined]
        return handle

    def _on_team_status(self, status: TeamStatus) -> None:
        self.last_team_status = status
        self.team_status_label.setText(status_text(status, self.identity.name))  # type: ignore[attr-defined]
