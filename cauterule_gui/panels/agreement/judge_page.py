"""The agreement screen's Judge page: one item at a time, one key commits, only the Reveal shows replay's answer."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.agreement.blind import answer_text
from core.domain.agreement import CANT_TELL, Reveal

from cauterule_gui import theme
from cauterule_gui.jobs.runner import JobFailure, JobHandle
from cauterule_gui.models import agreement_data
from cauterule_gui.panels.agreement.common import (
    ANSWER_KEYS,
    NEXT_KEYS,
    TAB_JUDGE,
    session_title,
)
from cauterule_gui.panels.base import bold
from cauterule_gui.plain_text import plain_label


class JudgePage:
    """The Judge page of ``AgreementPanel`` (a mixin: the widgets live on the panel)."""

    def _build_judge(self) -> QWidget:
        page = QWidget(self)
        page.setObjectName("agreementJudgePage")
        page.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.judge_page = page
        self.judge_header = bold(plain_label("", page))
        self.judge_header.setObjectName("judgeHeader")
        self.progress = QProgressBar(page)
        self.progress.setObjectName("judgeProgress")
        self.progress.setFormat("%v / %m judged")
        self.unblinded_banner = plain_label("", page)
        self.unblinded_banner.setObjectName("judgeUnblinded")
        self.unblinded_banner.setWordWrap(True)
        self.unblinded_banner.hide()
        self.rule_text = plain_label("", page)
        self.rule_text.setObjectName("judgeRule")
        self.rule_text.setWordWrap(True)
        self.rule_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bold(self.rule_text, 1)
        self.question = plain_label("", page)
        self.question.setObjectName("judgeQuestion")
        self.question.setWordWrap(True)
        self.evidence_list = QListWidget(page)
        self.evidence_list.setObjectName("judgeEvidence")
        self.evidence_list.setAccessibleName("Trajectories the rule fires on")
        self.evidence_list.setMaximumWidth(300)
        self.evidence_list.currentItemChanged.connect(lambda item, _p: self._show_evidence(item))
        self.evidence_title = plain_label("Where replay says the rule fires (buckets hidden)", page)
        # Plain text built by core.agreement.blind: no id, path, tag or expected_* before the commit.
        self.blind_text = QPlainTextEdit(page)
        self.blind_text.setObjectName("judgeTrajectory")
        self.blind_text.setReadOnly(True)
        self.blind_text.setAccessibleName("Trajectory (blind: ids and labels hidden)")
        self.answers_row = QHBoxLayout()
        self.reveal_label = plain_label("", page)
        self.reveal_label.setObjectName("judgeReveal")
        self.reveal_label.setWordWrap(True)
        self.reveal_label.setAutoFillBackground(True)
        bold(self.reveal_label, 2)
        self.reveal_label.hide()
        self.next_button = QPushButton("Next item  (Enter)", page)
        self.next_button.setObjectName("judgeNext")
        self.next_button.clicked.connect(self.load_item)
        self.next_button.setEnabled(False)
        self.one_key = QCheckBox("One-key judging (1–5 in the order shown, 0 = can't tell, Enter = next)", page)
        self.one_key.setObjectName("judgeOneKey")
        self.one_key.setChecked(True)
        self.one_key.setToolTip("Turn off to judge with the buttons only (WCAG 2.1 SC 2.1.4)")

        left = QWidget(page)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.evidence_title)
        ll.addWidget(self.evidence_list, 1)
        self.evidence_panel = left
        middle = QSplitter(Qt.Orientation.Horizontal, page)
        middle.addWidget(left)
        middle.addWidget(self.blind_text)
        middle.setStretchFactor(1, 1)
        bottom = QHBoxLayout()
        bottom.addLayout(self.answers_row)
        bottom.addStretch(1)
        bottom.addWidget(self.next_button)
        layout = QVBoxLayout(page)
        layout.addWidget(self.judge_header)
        layout.addWidget(self.progress)
        layout.addWidget(self.unblinded_banner)
        layout.addWidget(self.rule_text)
        layout.addWidget(self.question)
        layout.addWidget(middle, 1)
        layout.addLayout(bottom)
        layout.addWidget(self.reveal_label)
        layout.addWidget(self.one_key)
        for widget in [page, *page.findChildren(QWidget)]:
            widget.installEventFilter(self)
        return page

    # == judging ==========================================================================
    def load_item(self) -> JobHandle | None:
        session = self.current_session()
        self.current, self.reveal = None, None  # no key acts until the next item is on screen
        self.next_button.setEnabled(False)
        if session is None:
            self._show_item(None)
            return None
        reviewer = self.reviewer
        if not reviewer:
            reviewer = self.identity.require(self) or ""
            if not reviewer:
                self.judge_header.setText("Give your reviewer name to judge (Review ▸ Reviewer name…).")
                return None
        handle = self._db(lambda store: agreement_data.judge_item(store, session, reviewer), "next agreement item",
                          key=f"agreement-item:{id(self)}")
        if handle is not None:
            handle.result.connect(self._show_item)
            handle.error.connect(self._failed("Could not read the next item"))
        return handle

    def _show_item(self, judge: agreement_data.JudgeItem | None) -> None:
        self.current = judge
        self.reveal = None
        self._committing = False
        self.reveal_label.hide()
        self.reveal_label.setText("")
        self.next_button.setEnabled(False)
        self._clear_answers()
        if judge is None:
            self.judge_header.setText("No session selected: create one in “New session”.")
            self.rule_text.setText("")
            self.question.setText("")
            self.blind_text.setPlainText("")
            self.evidence_list.clear()
            return
        info, item, done = judge.session, judge.item, judge.progress
        self.progress.setRange(0, max(done.size, 1))
        self.progress.setValue(done.committed)
        if item is None:
            self.judge_header.setText(f"{session_title(info)} · you have judged every item.")
            self.rule_text.setText("Finished. The results are in the Results tab.")
            self.question.setText("")
            self.unblinded_banner.hide()
            self.blind_text.setPlainText("")
            self.evidence_list.clear()
            return
        view = judge.view
        assert view is not None
        # Only the core's blind view is shown before the commit: no ids, paths or origins.
        self.judge_header.setText(f"{session_title(info)} · {view.heading}")
        self.rule_text.setText(view.rule)
        self.question.setText(view.question)
        if item.replay_answer is not None:  # an unblinded session: said up front, reported apart
            self.unblinded_banner.setText(f"Unblinded session: replay's answer is {answer_text(item.replay_answer)}. "
                                          "These judgements never feed the gate.")
            self.unblinded_banner.show()
        else:
            self.unblinded_banner.hide()
        self.evidence_list.blockSignals(True)
        self.evidence_list.clear()
        for (pk, _tid), label in zip(judge.evidence, view.evidence_labels):
            entry = QListWidgetItem(label)
            entry.setData(Qt.ItemDataRole.UserRole, pk)
            self.evidence_list.addItem(entry)
        self.evidence_list.blockSignals(False)
        self.evidence_panel.setVisible(item.kind == "verdict")
        if item.kind == "verdict":
            self.evidence_title.setText(f"Replay says the rule fires on {len(judge.evidence)} trajector"
                                        f"{'y' if len(judge.evidence) == 1 else 'ies'} (buckets hidden)")
            self.blind_text.setPlainText("")
            if judge.evidence:
                self.evidence_list.setCurrentRow(0)
        else:
            self.blind_text.setPlainText(view.trajectory or "")
        self._add_answer_buttons(view.choices)
        if self.tabs.currentIndex() == TAB_JUDGE:
            self.judge_page.setFocus()

    def _add_answer_buttons(self, choices: tuple[tuple[str, str], ...]) -> None:
        self._clear_answers()
        decisive = [c for c, _label in choices if c != CANT_TELL]
        for choice, label in choices:
            key = "0" if choice == CANT_TELL else str(decisive.index(choice) + 1)
            button = QPushButton(f"{key}  {label}", self.judge_page)
            button.setObjectName(f"judge_{choice}")
            button.setAccessibleName(f"Judge: {label}")
            button.clicked.connect(lambda _c=False, a=choice: self.commit(a))
            button.installEventFilter(self)
            self.answers_row.addWidget(button)
            self._answer_buttons.append(button)

    def _clear_answers(self) -> None:
        for button in self._answer_buttons:
            self.answers_row.removeWidget(button)
            button.deleteLater()
        self._answer_buttons = []

    def _show_evidence(self, entry: QListWidgetItem | None) -> None:
        if entry is None:
            return
        pk = int(entry.data(Qt.ItemDataRole.UserRole))
        handle = self._db(lambda store: agreement_data.blind_trajectory(store, pk), "evidence trajectory",
                          key=f"agreement-evidence:{id(self)}")
        if handle is not None:
            handle.result.connect(lambda text: self.blind_text.setPlainText(text)
                                  if self.evidence_list.currentItem() is entry else None)

    def commit(self, answer: str) -> JobHandle | None:
        """Commit one judgement (final); replay's answer is shown only from the returned Reveal."""
        judge = self.current
        if judge is None or judge.item is None or self.reveal is not None or self._committing:
            return None
        item = judge.item
        if self._firing is None and item.scope_choices:
            # Step 1 of 2 on a failure: the firing answer; the scope question comes next.
            if answer not in item.choices:
                return None
            self._firing = answer
            view = judge.view
            assert view is not None
            self.question.setText(f"Firing: {answer_text(answer)}. {view.scope_question}")
            self._add_answer_buttons(view.scope_choices)
            return None
        firing, scope = (self._firing, answer) if self._firing is not None else (answer, None)
        if firing not in item.choices or (scope is not None and scope not in item.scope_choices):
            return None
        reviewer = self.identity.require(self)
        if not reviewer:
            return None
        self._committing = True
        for button in self._answer_buttons:
            button.setEnabled(False)
        item_id = item.item_id
        handle = self._op(lambda store: agreement_data.commit(store, item_id, reviewer, firing, scope),
                          "commit judgement", {"agreement"})
        if handle is None:
            self._committing = False
            return None
        handle.result.connect(self._on_revealed)
        handle.error.connect(self._on_commit_failed)
        return handle

    def _on_commit_failed(self, failure: JobFailure) -> None:
        self._committing = False
        self._firing = None
        for button in self._answer_buttons:
            button.setEnabled(True)
        self._failed("The judgement was not committed")(failure)

    def _on_revealed(self, reveal: Reveal) -> None:
        self._committing = False
        self.reveal = reveal
        if reveal.agrees is None:
            verdict, swatch = "you could not tell (left out of the statistics)", theme.swatch("missed")
        elif reveal.agrees:
            verdict, swatch = "✓ you agree", theme.swatch("pass")
        else:
            verdict, swatch = "✗ you disagree", theme.swatch("fail")
        scope = ""
        if reveal.replay_scope is not None:
            scope = (f"\nScope: you said {answer_text(reveal.scope or 'cant_tell')}; replay counts this failure in its "
                     "recall denominator (in scope)")
        shown = reveal.revealed or {}
        where = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in shown.items() if v not in (None, ""))
        self.reveal_label.setText(f"Your judgement: {answer_text(reveal.answer)} (committed) · replay said: "
                                  f"{answer_text(reveal.replay_answer)} · {verdict}{scope}"
                                  + (f"\nNow revealed — {where}" if where else ""))
        self._update_session_entry(reveal)
        if swatch is not None:
            palette = self.reveal_label.palette()
            palette.setColor(self.reveal_label.backgroundRole(), swatch.background)
            palette.setColor(self.reveal_label.foregroundRole(), swatch.foreground)
            self.reveal_label.setPalette(palette)
        self.reveal_label.show()
        for button in self._answer_buttons:
            button.setEnabled(False)
            if button.objectName() == f"judge_{reveal.answer}":
                button.setText(button.text() + "  ✔")
        self.progress.setRange(0, max(reveal.progress.size, 1))
        self.progress.setValue(reveal.progress.committed)
        self._firing = None
        self.next_button.setEnabled(True)
        self.next_button.setDefault(True)
        self.judgement_committed.emit(reveal)

    def _update_session_entry(self, reveal: Reveal) -> None:
        """Keep "you: k/n" in the session list true after every commit (it went stale before)."""
        judge = self.current
        if judge is None:
            return
        index = self.session_combo.findData(judge.session.id)
        if index >= 0:
            done = reveal.progress
            self.session_combo.setItemText(index, session_title(judge.session) + f" · you: {done.committed}/{done.size}")

    def _key_action(self, key: Qt.Key) -> Callable[[], object] | None:
        judge = self.current
        if judge is None or judge.item is None:
            return None
        if self.reveal is not None:
            return self.load_item if key in NEXT_KEYS else None
        offered = judge.item.scope_choices if self._firing is not None else judge.item.choices
        choices = [c for c in offered if c != CANT_TELL]
        if key == Qt.Key.Key_0:
            return lambda: self.commit(CANT_TELL)
        index = ANSWER_KEYS.get(key)
        if index is not None and index < len(choices):
            return lambda: self.commit(choices[index])
        return None
