"""What if: save an edited rule as a new version, replay it alone, list the bucket moves
against the result the reviewer was looking at (the previous version's).

The rule text is read, the edit saved (``core.decisions.save_whatif_edit``, which decides
whether it is a new version) and the moves read through the window's database executor; the
GUI thread only shows. The edit names the rule's row version the reviewer saw (or their own
last write's): an edit made after another reviewer's decision or edit opens the conflict
dialog (``review_conflicts``) instead of saving over it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.decisions import WhatIfEdit, save_whatif_edit
from core.domain.errors import ConcurrentChangeError
from core.store.workspace_query import WorkspaceRule, WorkspaceScope

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.glossary import word
from cauterule_gui.jobs.replay_job import ReplayDone
from cauterule_gui.models.formatting import VERDICT_TEXT
from cauterule_gui.panels.whatif_dialog import WhatIfDialog
from cauterule_gui.replay_controller import ReplayController
from cauterule_gui.review_conflicts import ConflictDialog, ask_conflict, versions_for
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class WhatIfController(QObject):
    moves_shown = Signal(object)  # list[BucketMove]

    def __init__(self, db: DatabaseExecutor, replay: ReplayController,
                 identity: ReviewerIdentity, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.db = db
        self._replay = replay
        self._identity = identity
        self._parent = dialog_parent
        self.dialog: WhatIfDialog | None = None
        self._rule: WorkspaceRule | None = None
        self._before_result: int | None = None
        self._waiting_run = False
        self.conflict_dialog: ConflictDialog | None = None
        replay.replay_finished.connect(self._on_replay_finished)

    def open(self, rule: WorkspaceRule | None, proposal: Any = None) -> None:
        """Open the dialog on the rule's latest text once it is read; with ``proposal`` (a
        ``SplitProposal`` offered when a one-sentence rule was approved), on the proposed halves."""
        if rule is None:
            return
        self.db.query(lambda s: s.rules.get(rule.rule_id), lambda info: self._show(rule, info, proposal),
                      name="what-if rule text")

    def _show(self, rule: WorkspaceRule, info: Any, proposal: Any = None) -> None:
        if info is None or self.dialog is not None:
            return
        self._rule = rule
        self._before_result = rule.result_id
        title = (f"{rule.origin} — shown: v{rule.version}, run #{rule.run_id}, "
                 f"{VERDICT_TEXT.get(rule.verdict, rule.verdict)} ({word(rule.reason)})")
        if rule.group_size > 1:
            # E on a collapsed duplicate group edits ONE rule: say which, and what the others keep.
            title += (f"\n\nThis row stands for ×{rule.group_size} duplicates (the same trigger and "
                      f"directive). The edit is saved as a new version of {rule.origin} only; the other "
                      f"{rule.group_size - 1} keep their text and their results. Expand the group (→) "
                      "to edit another one.")
        trigger, directive = info.latest.trigger, info.latest.directive
        if proposal is not None:
            # Trigger and directive were one sentence: offer the split, the reviewer edits it, and
            # Run saves it as a new version and replays it (the moves show what the split changes).
            title += "\nTrigger and directive were one sentence, which fires on no task: proposed split below."
            trigger, directive = proposal.trigger, proposal.directive
        dialog = WhatIfDialog(title, trigger, directive, self._parent)
        dialog.run_requested.connect(self.run)
        dialog.finished.connect(self._on_closed)
        self.dialog = dialog
        dialog.open()

    def _on_closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
        self._waiting_run = False

    def run(self, trigger: str, directive: str, expected: int | None = None) -> None:
        rule = self._rule
        services = self.db.services()
        if rule is None or self.dialog is None or services is None:
            return
        if self._replay.running:
            self.dialog.show_failure("A replay is already running; wait for it or cancel it first.")
            return
        reviewer = self._identity.require(self._parent)
        if not reviewer:
            return
        dialog = self.dialog
        dialog.set_running("Saving…")
        book = versions_for(services.store)
        seen = expected if expected is not None else book.expected("rule", rule.rule_id, rule.row_version)

        def failed(error: BaseException) -> None:
            if isinstance(error, ConcurrentChangeError):
                self._conflict(error, trigger, directive)
            else:
                dialog.show_failure(str(error)[:1].upper() + str(error)[1:])

        self.db.op(lambda s: save_whatif_edit(s.store, rule.rule_id, trigger, directive, reviewer,
                                              expected_version=seen),
                   self._saved, kinds={"rules"}, name="what-if edit", on_error=failed)

    def _conflict(self, error: ConcurrentChangeError, trigger: str, directive: str) -> None:
        """Someone decided on or edited the rule since it was shown: the reviewer chooses."""
        dialog = self.dialog
        if dialog is None:
            return
        dialog.show_failure(f"Not saved: {error.by or 'another writer'} changed the rule first.")

        def keep_mine(found: int) -> None:
            self.conflict_dialog = None
            self.run(trigger, directive, expected=found)

        def take_theirs() -> None:
            self.conflict_dialog = None
            dialog.reject()  # drop the edit; the window already shows the other reviewer's change

        def cancel() -> None:
            self.conflict_dialog = None  # the edit stays in the dialog, unsaved

        self.conflict_dialog = ask_conflict(self._parent, error, f"edit: when {trigger} / do {directive}",
                                            keep_mine=keep_mine, take_theirs=take_theirs, cancel=cancel)

    def _saved(self, edit: WhatIfEdit) -> None:
        services = self.db.services()
        if services is not None:  # the reviewer's next decision or edit names the version this edit left
            versions_for(services.store).note("rule", edit.rule_id, edit.row_version)
        if self.dialog is None:
            return
        handle = self._replay.start(edit.label, [edit.rule_id])
        if handle is None:
            self.dialog.show_failure("Replay could not start.")
            return
        self._waiting_run = True
        self.dialog.set_running(f"Saved; replaying {edit.label}…")

    def _on_replay_finished(self, done: ReplayDone) -> None:
        if not self._waiting_run or self.dialog is None or self._rule is None:
            return
        self._waiting_run = False
        if done.status != "complete":
            self.dialog.show_failure(f"Replay run #{done.run_id} was {done.status}; nothing to compare.")
            return
        rule_id, before_id = self._rule.rule_id, self._before_result

        def compare(s: StoreServices) -> tuple[Any, Any, Any]:
            after = s.results.rule_row(WorkspaceScope(run_id=done.run_id), rule_id)
            if after is None or before_id is None:
                return None, None, []
            return after, s.results.result(before_id), s.results.bucket_moves(before_id, after.result_id)

        self.db.query(compare, lambda found: self._show_moves(done, *found), name="what-if moves")

    def _show_moves(self, done: ReplayDone, after: Any, before: Any, moves: list[Any]) -> None:
        if self.dialog is None:
            return
        if after is None:
            self.dialog.show_failure("The rule has no result in the new run.")
            return
        verdict_before = f"{VERDICT_TEXT.get(before.verdict, before.verdict)} ({before.reason})" if before else "—"
        summary = (f"v{before.version if before else '?'} → v{after.version} (run #{done.run_id}): verdict "
                   f"{verdict_before} → {VERDICT_TEXT.get(after.verdict, after.verdict)} ({after.reason}); "
                   f"{len(moves)} trajector{'y' if len(moves) == 1 else 'ies'} moved")
        self.dialog.show_moves(summary, moves)
        self.moves_shown.emit(moves)
