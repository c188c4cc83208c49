"""What if: save an edited rule as a new version, replay it alone, list the bucket moves
against the result the reviewer was looking at (the previous version's)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from core.store.rule_repo import RuleText
from core.store.workspace_query import WorkspaceRule, WorkspaceScope

from cauterule_gui.jobs.replay_job import ReplayDone
from cauterule_gui.models.formatting import VERDICT_TEXT
from cauterule_gui.panels.whatif_dialog import WhatIfDialog
from cauterule_gui.replay_controller import ReplayController
from cauterule_gui.reviewer import ReviewerIdentity
from cauterule_gui.services import StoreServices


class WhatIfController(QObject):
    moves_shown = Signal(object)  # list[BucketMove]

    def __init__(self, services: Callable[[], StoreServices | None], replay: ReplayController,
                 identity: ReviewerIdentity, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self._services = services
        self._replay = replay
        self._identity = identity
        self._parent = dialog_parent
        self.dialog: WhatIfDialog | None = None
        self._rule: WorkspaceRule | None = None
        self._before_result: int | None = None
        self._waiting_run = False
        replay.replay_finished.connect(self._on_replay_finished)

    def open(self, rule: WorkspaceRule | None) -> WhatIfDialog | None:
        services = self._services()
        if rule is None or services is None:
            return None
        info = services.rules.get(rule.rule_id)
        if info is None:
            return None
        self._rule = rule
        self._before_result = rule.result_id
        dialog = WhatIfDialog(f"{rule.origin} — shown: v{rule.version}, run #{rule.run_id}, "
                              f"{VERDICT_TEXT.get(rule.verdict, rule.verdict)} ({rule.reason})",
                              info.latest.trigger, info.latest.directive, self._parent)
        dialog.run_requested.connect(self.run)
        dialog.finished.connect(self._on_closed)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
        self._waiting_run = False

    def run(self, trigger: str, directive: str) -> None:
        services = self._services()
        rule = self._rule
        if services is None or rule is None or self.dialog is None:
            return
        if self._replay.running:
            self.dialog.show_failure("A replay is already running; wait for it or cancel it first.")
            return
        reviewer = self._identity.require(self._parent)
        if not reviewer:
            return
        info = services.rules.get(rule.rule_id)
        assert info is not None
        latest = info.latest
        if (trigger, directive) != (latest.trigger, latest.directive):
            text = RuleText(trigger=trigger, directive=directive, context=latest.context, signature=latest.signature,
                            because=latest.because, confidence=latest.confidence)
            version = services.workspace.edit_rule(rule.rule_id, text, reviewer, "what-if edit in the review workspace")
            label = f"what-if rule {rule.rule_id} v{version.version}"
        else:
            label = f"what-if rule {rule.rule_id} v{latest.version} (unchanged)"
        handle = self._replay.start(label, [rule.rule_id])
        if handle is None:
            self.dialog.show_failure("Replay could not start.")
            return
        self._waiting_run = True
        self.dialog.set_running(f"Saved; replaying {label}…")

    def _on_replay_finished(self, done: ReplayDone) -> None:
        services = self._services()
        if not self._waiting_run or self.dialog is None or services is None or self._rule is None:
            return
        self._waiting_run = False
        if done.status != "complete":
            self.dialog.show_failure(f"Replay run #{done.run_id} was {done.status}; nothing to compare.")
            return
        after = services.workspace.rule_row(WorkspaceScope(run_id=done.run_id), self._rule.rule_id)
        if after is None or self._before_result is None:
            self.dialog.show_failure("The rule has no result in the new run.")
            return
        before = services.workspace.result(self._before_result)
        moves = services.workspace.bucket_moves(self._before_result, after.result_id)
        verdict_before = f"{VERDICT_TEXT.get(before.verdict, before.verdict)} ({before.reason})" if before else "—"
        summary = (f"v{before.version if before else '?'} → v{after.version} (run #{done.run_id}): verdict "
                   f"{verdict_before} → {VERDICT_TEXT.get(after.verdict, after.verdict)} ({after.reason}); "
                   f"{len(moves)} trajector{'y' if len(moves) == 1 else 'ies'} moved")
        self.dialog.show_moves(summary, moves)
        self.moves_shown.emit(moves)
