"""The Team page's live section: the selected session's assignments, progress and inter-rater figures.

``core.agreement.assignments.team_status`` computes them on the database pool (never on the GUI
thread). The section recomputes whenever the window reports an "agreement" change
(``changes_applied``: this window's own writes and, on a team store, other reviewers' commits
delivered by ``cauterule_gui/live_changes.py``), so kappa and alpha move as judgements arrive.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from core.agreement.assignments import TeamStatus

from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.plain_text import plain_label

AGREEMENT_KIND = "agreement"


def status_text(status: TeamStatus) -> str:
    """Plain text for the section (reviewer names are untrusted: the label shows plain text)."""
    share = ("not assigned: every reviewer judges every item" if status.per_item is None
             else f"assigned, {status.per_item} reviewer(s) per item")
    lines = [f"Session {status.session_id}: {status.items} items, {share}."]
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
        self.team_status_label = plain_label("Select a session to see its team status.", parent)
        self.team_status_label.setObjectName("teamStatus")
        self.team_status_label.setWordWrap(True)
        return self.team_status_label

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
        self.team_status_label.setText(status_text(status))
