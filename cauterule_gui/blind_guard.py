"""Blind means blind in the whole window (issue 24 item 12).

While the reviewer has an unfinished blind agreement session, replay's answers for the rules
of that session (verdict, reason, bucket counts, rates, the evidence board, the injection
strip's "replay prevented / broke" counts) are not shown anywhere in the window. The guard
reads which rules those are (``core.agreement.early_reveal.hidden_rules``, off the GUI thread)
when the window opens, the store or the reviewer changes, and after any committed write of
kind ``agreement`` (a new session, a judgement: the last one ends the hiding).

"Show evidence anyway" (the evidence board's button) reveals one rule for this window and is
recorded in the store (``record_early_reveal``: an audit event per unfinished blind session
holding it), so that the judgements of that rule made afterwards are reported apart in the
session's results. The rules table, the board, the strip and the Promotion tab follow ``changed``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from core.agreement.early_reveal import HiddenSession, hidden_rules, record_early_reveal

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor
    from cauterule_gui.reviewer import ReviewerIdentity

HIDDEN_TEXT = "hidden: in your blind session"


def hidden_tooltip(session: HiddenSession | None) -> str:
    where = session.words if session is not None else "your unfinished blind agreement session"
    return (f"Replay's answer for this rule is hidden: the rule is in {where}. Judging after seeing "
            "it would not be blind. Finish the session, or select the rule and choose "
            "\"Show evidence anyway\" (recorded: your later judgements of it are reported apart).")


def blind_refusal(count: int) -> str:
    """Why a decision on rules whose replay answer is hidden is not sent (plain, one line): the
    core's refusal would name replay's verdict ("approval refused: replay's verdict is …")."""
    which = "This rule is" if count == 1 else f"{count} of these rules are"
    return (f"Not decided: {which} in your unfinished blind agreement session, and a decision would rest on "
            "replay's answer. Finish the session, or choose “Show evidence anyway” on the rule's board.")


class BlindGuard(QObject):
    changed = Signal()  # the set of hidden rules changed (read again, or a rule revealed)

    def __init__(self, db: DatabaseExecutor, identity: ReviewerIdentity, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._db = db
        self._identity = identity
        self.hidden: dict[str, HiddenSession] = {}  # rule origin -> the unfinished blind session holding it
        self.revealed: set[str] = set()  # origins the reviewer chose to see anyway (this window, this reviewer)
        self._reviewer = identity.name
        db.changes_applied.connect(lambda kinds, _by: self.refresh() if "agreement" in kinds else None)
        identity.changed.connect(lambda _name: self.reviewer_changed())

    def masked(self) -> frozenset[str]:
        """Origins whose replay answers are hidden now."""
        return frozenset(o for o in self.hidden if o not in self.revealed)

    def hides(self, origin: str | None) -> bool:
        return origin is not None and origin in self.hidden and origin not in self.revealed

    def session_of(self, origin: str) -> HiddenSession | None:
        return self.hidden.get(origin)

    def refresh(self) -> None:
        reviewer = self._identity.name
        self._db.query(lambda s: hidden_rules(s.store, reviewer), lambda found: self._read(reviewer, found),
                       name="blind session rules", key=f"blind-rules:{id(self)}")

    def _read(self, reviewer: str | None, found: dict[str, HiddenSession]) -> None:
        if reviewer != self._identity.name:
            return  # the reviewer changed while it was read: that read follows
        if found != self.hidden:
            self.hidden = found
            self.changed.emit()

    def reviewer_changed(self) -> None:
        if self._identity.name != self._reviewer:
            self._reviewer = self._identity.name
            self.revealed.clear()  # a reveal is the reviewer's own choice
        self.refresh()

    def store_switched(self) -> None:
        self.hidden, self.revealed = {}, set()
        self.changed.emit()
        self.refresh()

    def reveal(self, origin: str) -> None:
        """The reviewer chose "Show evidence anyway" for this rule: shown in this window from now
        on, and recorded in the store (the write runs on the database thread)."""
        if origin in self.revealed:
            return
        self.revealed.add(origin)
        reviewer = self._identity.name
        if reviewer:
            self._db.op(lambda s: record_early_reveal(s.store, reviewer, origin), None, kinds={"agreement"},
                        name="record an early reveal", initiator=self)
        self.changed.emit()


def install_blind_guard(window: Any) -> BlindGuard:
    """The window's guard: the rules table masks the hidden rules' answers, the Review tab's
    board follows its changes; the first read is queued behind the window's first pages."""
    guard = BlindGuard(window.db, window.identity, window)
    window.review.blind = guard
    window.whatif.blind = guard  # no What-if on a hidden rule: it would show replay's answers
    model = window.rule_model
    guard.changed.connect(lambda: model.set_blind(guard.masked(), lambda o: hidden_tooltip(guard.session_of(o))))
    guard.changed.connect(window.review.blind_changed)
    guard.changed.connect(window.workspace.rules.refresh_options)  # no verdict choice only hidden rules have
    QTimer.singleShot(0, window, guard.refresh)
    return guard


def watch_promotion(guard: BlindGuard, panel: Any) -> None:
    """The Promotion tab hides the same rules' verdict, gates and queue group, refuses deciding
    them there, and offers the same recorded "Show evidence anyway" (``PromotionPanel.blind_changed``)."""
    panel.blind = guard
    guard.changed.connect(panel.blind_changed)
    panel.blind_changed()
